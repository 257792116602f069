import { runnerPackage } from "../source/package-runner.js";
import { artifactSubject, validateArtifact, type Artifact } from "../source/artifact.js";
import { CANONICALIZATION } from "../json/canonical-json.js";
import { TOOLS } from "../contract/kinds.js";
import { serverDigest, type ServerDigests, type ToolDigests } from "../contract/digest.js";
import {
  getMember,
  pathKey,
  setMember,
  type JsonObject,
  type JsonValue,
} from "../json/json-value.js";
import { validateConfigs, type LockConfigs } from "./lock-configs.js";
import { corrupt, digestAt, fail, object, onlyKeys, validateItems } from "./lock-shape.js";
import { validateSurface } from "./lock-surface.js";
import { surfaceServerDigest } from "../surface/surface.js";
import { escapeHiddenJson, prettyJson } from "../json/pretty-json.js";
import { validateAuth } from "../source/server-auth.js";
import { TRANSPORTS, type ServerSource } from "../source/server-source.js";

/** The lock format of a lock that pins only tools (spec 5): written whenever it suffices. */
export const LOCK_VERSION = "1";
/** The lock format of a lock where some server pins more than its tools (SPEC.md 10.4). */
export const LOCK_VERSION_SURFACE = "2";
/**
 * The lock format of a lock that records the client configs it covers
 * (SPEC.md 12), where some server records its artifact (SPEC.md 11.1), or
 * where some tool records a side pin (SPEC.md 13).
 */
export const LOCK_VERSION_ARTIFACT = "3";
/** The same format 3, named for the configs it may record. */
export const LOCK_VERSION_CONFIGS = LOCK_VERSION_ARTIFACT;
/** The only digest algorithm of every format. */
export const ALGORITHM = "sha256";

/**
 * A pinned server: how to reach it, the digests of its tools, and (format 3)
 * what its registry served for its pinned package, outside every digest.
 */
export type PinnedServer = ServerSource & ServerDigests & { artifact?: Artifact };

const VERSIONS: readonly string[] = [LOCK_VERSION, LOCK_VERSION_SURFACE, LOCK_VERSION_ARTIFACT];

/** The lock's content. The format constants are implied and written by {@link renderLock}. */
export interface Lock {
  /** UTC, `YYYY-MM-DDTHH:MM:SSZ`; informational. */
  generated_at: string;
  /** Keyed by the adopter's server names; `__proto__` is an ordinary own key. */
  servers: Record<string, PinnedServer>;
  /** The client configs the lock covers and the servers left unpinned (SPEC.md 12); format "3". */
  configs?: LockConfigs;
}

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const SOURCE_KEYS: Record<ServerSource["transport"], { required: string[]; optional: string[] }> = {
  stdio: { required: ["command"], optional: ["env", "cwd"] },
  http: { required: ["url"], optional: ["headers", "auth"] },
  file: { required: ["path"], optional: [] },
};
const DIGEST_KEYS = ["tool_count", "digest", "tools"];
/** The lock members of a tool's side pins (SPEC.md 13), from the kind table. */
const SIDE_PIN_MEMBERS: readonly string[] = TOOLS.sidePins.map((p) => p.member);

/**
 * Checks the whole shape of a parsed lock (spec 5) and returns it typed.
 * A lock whose server digest does not follow from its tool digests, or whose
 * tool_count is off, was edited by hand: it is corrupt, not drift.
 *
 * @throws ContractpinError LOCK_VERSION_UNSUPPORTED, LOCK_ALGORITHM_UNSUPPORTED,
 *   LOCK_CANONICALIZATION_UNSUPPORTED, or LOCK_CORRUPT naming the offending key.
 */
export function validateLock(value: JsonValue): Lock {
  const root = object(value, "the lock");
  const version = validateHeader(root);
  const servers = object(getMember(root, "servers"), "servers");
  const out: Record<string, PinnedServer> = {};
  for (const name of Object.keys(servers)) {
    setMember(out, name, validateServer(servers[name]!, pathKey("servers", name), version));
  }
  const lock: Lock = { generated_at: getMember(root, "generated_at") as string, servers: out };
  const configsValue = getMember(root, "configs");
  if (configsValue !== undefined) lock.configs = validateConfigs(configsValue, Object.keys(out));
  // One lock, one spelling: "3" exactly when it records configs, some server
  // records its artifact or some tool a side pin, else "2" exactly when some
  // server pins its surface.
  const spelled = lockVersion(lock);
  if (version === LOCK_VERSION_SURFACE && spelled !== LOCK_VERSION_SURFACE) {
    corrupt(
      "contractpin",
      'is "2" but no server pins more than its tools (that lock is version "1")',
    );
  }
  if (version === LOCK_VERSION_ARTIFACT && spelled !== LOCK_VERSION_ARTIFACT) {
    corrupt(
      "contractpin",
      `is "3" but the lock records no configs, no server records its artifact and no tool its visibility (that lock is version "${spelled}")`,
    );
  }
  return lock;
}

/**
 * How server `name` of a parsed lock is reached, as {@link validateLock}
 * would give it, checking only the lock's format members and that server's
 * source (command, env, cwd; url, headers, auth; path); undefined when any
 * of them is not as validateLock accepts it, or there is no such server
 * (validateLock then says what is wrong). For a caller that starts the
 * server while it validates the rest (the guard): it must use nothing the
 * server sends before validateLock has accepted the whole lock.
 */
export function sourceOf(value: JsonValue, name: string): ServerSource | undefined {
  try {
    const root = object(value, "the lock");
    validateHeader(root);
    const servers = object(getMember(root, "servers"), "servers");
    if (!Object.hasOwn(servers, name)) return undefined;
    const where = pathKey("servers", name);
    const server = object(servers[name], where);
    // A server that records its artifact runs by the recorded digest
    // (runsRecorded), which only the whole validated entry gives.
    if (getMember(server, "artifact") !== undefined) return undefined;
    const transport = getMember(server, "transport");
    if (typeof transport !== "string" || !(TRANSPORTS as readonly string[]).includes(transport))
      return undefined;
    return validateSource(server, transport as ServerSource["transport"], where);
  } catch {
    return undefined;
  }
}

/** Checks the lock's format members (all but `servers`); returns its format version. */
function validateHeader(root: JsonObject): string {
  const version = getMember(root, "contractpin");
  if (typeof version !== "string" || !VERSIONS.includes(version)) {
    if (version === undefined)
      corrupt("contractpin", 'is missing (expected the format version "1", "2" or "3")');
    fail(
      "LOCK_VERSION_UNSUPPORTED",
      `lock format version ${JSON.stringify(version)} is not supported (this contractpin reads versions "1", "2" and "3")`,
    );
  }
  const algorithm = getMember(root, "algorithm");
  if (algorithm !== ALGORITHM) {
    if (algorithm === undefined) corrupt("algorithm", "is missing");
    fail(
      "LOCK_ALGORITHM_UNSUPPORTED",
      `algorithm ${JSON.stringify(algorithm)} is not supported (expected "sha256")`,
    );
  }
  const canonicalization = getMember(root, "canonicalization");
  if (canonicalization !== CANONICALIZATION) {
    if (canonicalization === undefined) corrupt("canonicalization", "is missing");
    fail(
      "LOCK_CANONICALIZATION_UNSUPPORTED",
      `canonicalization ${JSON.stringify(canonicalization)} is not supported (expected "${CANONICALIZATION}")`,
    );
  }
  const generatedAt = getMember(root, "generated_at");
  if (typeof generatedAt !== "string" || !TIMESTAMP.test(generatedAt)) {
    corrupt("generated_at", "must be a UTC timestamp like 2026-08-14T09:31:07Z");
  }
  const rootKeys = ["contractpin", "algorithm", "canonicalization", "generated_at", "servers"];
  onlyKeys(root, "", version === LOCK_VERSION_CONFIGS ? [...rootKeys, "configs"] : rootKeys);
  return version;
}

function validateServer(value: JsonValue, where: string, version: string): PinnedServer {
  const server = object(value, where);
  const transport = getMember(server, "transport");
  if (typeof transport !== "string" || !(TRANSPORTS as readonly string[]).includes(transport)) {
    corrupt(`${where}.transport`, `must be one of ${TRANSPORTS.map((t) => `"${t}"`).join(", ")}`);
  }
  const keys = SOURCE_KEYS[transport as ServerSource["transport"]];
  for (const key of keys.required) {
    if (getMember(server, key) === undefined)
      corrupt(`${where}.${key}`, `is required for transport "${transport}"`);
  }
  const surfaceKey = version !== LOCK_VERSION ? ["surface"] : [];
  const artifactKey = version === LOCK_VERSION_ARTIFACT ? ["artifact"] : [];
  onlyKeys(server, where, [
    "transport",
    ...keys.required,
    ...keys.optional,
    ...DIGEST_KEYS,
    ...surfaceKey,
    ...artifactKey,
  ]);
  const source = validateSource(server, transport as ServerSource["transport"], where);

  const tools = validateItems(
    getMember(server, "tools"),
    `${where}.tools`,
    TOOLS.fields,
    {
      value: getMember(server, "tool_count"),
      where: `${where}.tool_count`,
      problem: (n) => `the server has ${n} tools`,
    },
    // A tool's side pins (SPEC.md 13) are keys of format "3" only.
    version === LOCK_VERSION_ARTIFACT ? SIDE_PIN_MEMBERS : [],
  );
  const digest = digestAt(getMember(server, "digest"), `${where}.digest`);
  const surfaceValue = getMember(server, "surface");
  const surface =
    surfaceValue === undefined ? undefined : validateSurface(surfaceValue, `${where}.surface`);
  const toolsDigest = serverDigest(tools.keys);
  const expected = surface === undefined ? toolsDigest : surfaceServerDigest(toolsDigest, surface);
  if (digest !== expected) {
    corrupt(
      `${where}.digest`,
      surface === undefined
        ? "does not match the digest of its tools' digests (was the lock edited by hand?)"
        : "does not match the digest of its surface (was the lock edited by hand?)",
    );
  }
  const pinned: PinnedServer = {
    ...source,
    tool_count: tools.count,
    digest,
    tools: tools.items as Record<string, ToolDigests>,
  };
  if (surface !== undefined) pinned.surface = surface;
  const artifactValue = getMember(server, "artifact");
  if (artifactValue !== undefined)
    pinned.artifact = checkedArtifact(artifactValue, source, `${where}.artifact`);
  return pinned;
}

/**
 * A server's artifact, which must name the package and exact version its
 * command runs (SPEC.md 11.1): one that names another was left behind by a
 * hand edit of the command, and would check a package that does not run.
 */
function checkedArtifact(value: JsonValue, source: ServerSource, where: string): Artifact {
  const artifact = validateArtifact(value, where);
  const pkg = source.transport === "stdio" ? runnerPackage(source.command) : undefined;
  const { name, version } = artifactSubject(artifact);
  const runs =
    pkg === undefined || pkg.version === undefined
      ? "the server runs no exactly pinned package"
      : pkg.name !== name || pkg.version !== version
        ? `the command runs ${pkg.name} ${pkg.version}`
        : undefined;
  const kindOf = { npm: "npm", python: "python", pipx: "python", docker: "image" } as const;
  if (runs === undefined && kindOf[pkg!.ecosystem] === artifact.kind) return artifact;
  corrupt(
    where,
    `records ${name} ${version} (${artifact.kind}) but ${runs ?? `the command runs it from another kind of registry`} (was the lock edited by hand? 'contractpin update' records it again)`,
  );
}

function validateSource(
  server: JsonObject,
  transport: ServerSource["transport"],
  where: string,
): ServerSource {
  switch (transport) {
    case "stdio": {
      const command = getMember(server, "command");
      if (
        !Array.isArray(command) ||
        command.length === 0 ||
        !command.every((a) => typeof a === "string")
      ) {
        corrupt(`${where}.command`, "must be a non-empty array of strings (argv)");
      }
      const source: ServerSource = { transport, command: command as string[] };
      const env = getMember(server, "env");
      if (env !== undefined) source.env = stringRecord(env, `${where}.env`);
      const cwd = getMember(server, "cwd");
      if (cwd !== undefined) source.cwd = nonEmptyString(cwd, `${where}.cwd`);
      return source;
    }
    case "http": {
      const url = nonEmptyString(getMember(server, "url"), `${where}.url`);
      const source: ServerSource = { transport, url };
      const headers = getMember(server, "headers");
      if (headers !== undefined) source.headers = stringRecord(headers, `${where}.headers`);
      const auth = getMember(server, "auth");
      if (auth !== undefined) {
        source.auth = validateAuth(auth, `${where}.auth`, "LOCK_CORRUPT", "lock is corrupt: ");
      }
      return source;
    }
    case "file":
      return { transport, path: nonEmptyString(getMember(server, "path"), `${where}.path`) };
  }
}

/**
 * The lock as written: pretty-printed, keys sorted, two-space indent, LF,
 * trailing newline (spec 5). Tool names come from servers and the lock is read
 * in `git diff`, so every hidden, bidirectional or C1 character is a `\u`
 * escape, as in the snapshots: the values, and so every digest, are unchanged.
 */
export function renderLock(lock: Lock): string {
  return (
    escapeHiddenJson(
      prettyJson({
        contractpin: lockVersion(lock),
        algorithm: ALGORITHM,
        canonicalization: CANONICALIZATION,
        ...(lock.configs === undefined ? {} : { configs: lock.configs }),
        generated_at: lock.generated_at,
        servers: lock.servers,
      }),
    ) + "\n"
  );
}

/**
 * The format version a lock is written with: "1" while every server pins
 * only its tools (exactly a spec v1 lock), "2" once one pins its surface,
 * "3" once the lock records the configs it covers, one server records its
 * artifact (SPEC.md 11) or one tool a side pin (SPEC.md 13), so that an older
 * reader refuses what it cannot check.
 */
export function lockVersion(lock: Pick<Lock, "servers" | "configs">): string {
  if (lock.configs !== undefined) return LOCK_VERSION_CONFIGS;
  const { servers } = lock;
  let version = LOCK_VERSION;
  for (const name in servers) {
    if (!Object.hasOwn(servers, name)) continue;
    const server = servers[name]!;
    if (server.artifact !== undefined || hasSidePin(server)) return LOCK_VERSION_ARTIFACT;
    if (server.surface !== undefined) version = LOCK_VERSION_SURFACE;
  }
  return version;
}

/** Whether some tool of the server records a side pin (SPEC.md 13). */
function hasSidePin(server: PinnedServer): boolean {
  for (const tool in server.tools) {
    if (!Object.hasOwn(server.tools, tool)) continue;
    const digests = server.tools[tool]!;
    if (TOOLS.sidePins.some((p) => digests[p.member] !== undefined)) return true;
  }
  return false;
}

/** True when two locks differ at most in generated_at: rewriting would only churn git. */
export function sameContent(a: Lock, b: Lock): boolean {
  return renderLock({ ...a, generated_at: "" }) === renderLock({ ...b, generated_at: "" });
}

/** A UTC timestamp for generated_at, to the second. */
export function timestamp(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}

function nonEmptyString(value: JsonValue | undefined, where: string): string {
  if (typeof value !== "string" || value === "") corrupt(where, "must be a non-empty string");
  return value;
}

function stringRecord(value: JsonValue, where: string): Record<string, string> {
  const record = object(value, where);
  const out: Record<string, string> = {};
  for (const key of Object.keys(record)) {
    const v = record[key];
    if (typeof v !== "string") corrupt(pathKey(where, key), "must be a string");
    setMember(out, key, v);
  }
  return out;
}
