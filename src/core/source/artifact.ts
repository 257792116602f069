import { runnerPackage } from "./package-runner.js";
import type { Digest } from "../contract/digest.js";
import { toFinding, type Finding } from "../findings/finding.js";
import {
  getMember,
  pathKey,
  setMember,
  type JsonObject,
  type JsonValue,
} from "../json/json-value.js";
import { corrupt, digestAt, object, onlyKeys } from "../lock/lock-shape.js";

/**
 * What a registry serves for a server's exactly pinned package (SPEC.md 11):
 * recorded beside the contract, never inside a digest of it. `kind` says
 * which registry answered and which member holds what it served.
 */
export type Artifact =
  /** npm: the version's `dist.integrity` (an SRI string) as the registry serves it. */
  | { kind: "npm"; package: string; version: string; integrity: string }
  /** A Python index: every file it lists for the version, by file name, with its sha256. */
  | { kind: "python"; package: string; version: string; files: Record<string, Digest> }
  /** An image registry: the digest of the manifest its tag names. */
  | { kind: "image"; image: string; tag: string; digest: Digest };

/** The artifact kinds, as the lock spells them. */
export const ARTIFACT_KINDS = ["npm", "python", "image"] as const;

/** One SRI hash (W3C Subresource Integrity), as npm writes `dist.integrity`. */
export const SRI = /^sha(?:256|384|512)-[A-Za-z0-9+/]+={0,2}$/;

/** The package and version an artifact names, as the runner's command spells them. */
export function artifactSubject(a: Artifact): { name: string; version: string } {
  return a.kind === "image"
    ? { name: a.image, version: a.tag }
    : { name: a.package, version: a.version };
}

/** What an artifact holds, in a few words for a pin's report (registry text: shown through visibleText). */
export function artifactText(a: Artifact): string {
  switch (a.kind) {
    case "npm":
      return `dist.integrity ${a.integrity}`;
    case "python": {
      const n = Object.keys(a.files).length;
      return `the sha256 of ${n} file${n === 1 ? "" : "s"}`;
    }
    case "image":
      return `manifest digest ${a.digest}`;
  }
}

/**
 * What a re-pin did to a server's artifact, for update and init --force:
 * undefined when it records the same (or none, before and after).
 */
export function artifactNote(before?: Artifact, after?: Artifact): string | undefined {
  if (after === undefined)
    return before === undefined ? undefined : "no longer records its artifact";
  if (before === undefined) return `now records its artifact: ${artifactText(after)}`;
  return compareArtifacts(before, after).length === 0
    ? undefined
    : `records its artifact anew: ${artifactText(after)}`;
}

/**
 * Checks a lock's `artifact` member (SPEC.md 11.1) and returns it typed.
 * @throws ContractpinError LOCK_CORRUPT naming the offending key.
 */
export function validateArtifact(value: JsonValue, where: string): Artifact {
  const obj = object(value, where);
  const kind = getMember(obj, "kind");
  if (typeof kind !== "string" || !(ARTIFACT_KINDS as readonly string[]).includes(kind))
    corrupt(`${where}.kind`, `must be one of ${ARTIFACT_KINDS.map((k) => `"${k}"`).join(", ")}`);
  switch (kind as Artifact["kind"]) {
    case "npm": {
      onlyKeys(obj, where, ["kind", "package", "version", "integrity"]);
      const integrity = text(obj, where, "integrity");
      if (!SRI.test(integrity))
        corrupt(`${where}.integrity`, "must be one SRI hash such as sha512-<base64>");
      return {
        kind: "npm",
        package: text(obj, where, "package"),
        version: text(obj, where, "version"),
        integrity,
      };
    }
    case "python": {
      onlyKeys(obj, where, ["kind", "package", "version", "files"]);
      const files = object(getMember(obj, "files"), `${where}.files`);
      const out: Record<string, Digest> = {};
      for (const name of Object.keys(files)) {
        if (name === "") corrupt(`${where}.files`, "has an empty file name");
        setMember(out, name, digestAt(files[name], pathKey(`${where}.files`, name)));
      }
      if (Object.keys(out).length === 0) corrupt(`${where}.files`, "must name at least one file");
      return {
        kind: "python",
        package: text(obj, where, "package"),
        version: text(obj, where, "version"),
        files: out,
      };
    }
    case "image":
      onlyKeys(obj, where, ["kind", "image", "tag", "digest"]);
      return {
        kind: "image",
        image: text(obj, where, "image"),
        tag: text(obj, where, "tag"),
        digest: digestAt(getMember(obj, "digest"), `${where}.digest`),
      };
  }
}

function text(obj: JsonObject, where: string, key: string): string {
  const value = getMember(obj, key);
  if (typeof value !== "string" || value === "")
    corrupt(`${where}.${key}`, "must be a non-empty string");
  return value;
}

/** One member of a recorded artifact that the registry now serves otherwise. */
export interface ArtifactChange {
  /** JSON Pointer into the server's entry: `/artifact/integrity`, `/artifact/files/NAME`, `/artifact/digest`. */
  pointer: string;
  /** The recorded value; absent for a file the index lists now and did not then. */
  before?: string;
  /** The value served now; absent for a file the index no longer lists. */
  after?: string;
}

/**
 * What differs between the recorded artifact and the one the registry serves
 * now for the same package and version (SPEC.md 11.3): the integrity, the
 * manifest digest, or each file whose sha256 changed, that was added or that
 * went. Equal artifacts give none. Pure.
 */
export function compareArtifacts(recorded: Artifact, served: Artifact): ArtifactChange[] {
  if (recorded.kind === "npm" && served.kind === "npm") {
    return recorded.integrity === served.integrity
      ? []
      : [{ pointer: "/artifact/integrity", before: recorded.integrity, after: served.integrity }];
  }
  if (recorded.kind === "image" && served.kind === "image") {
    return recorded.digest === served.digest
      ? []
      : [{ pointer: "/artifact/digest", before: recorded.digest, after: served.digest }];
  }
  if (recorded.kind === "python" && served.kind === "python") {
    const changes: ArtifactChange[] = [];
    const names = new Set([...Object.keys(recorded.files), ...Object.keys(served.files)]);
    for (const name of [...names].sort()) {
      const before = Object.hasOwn(recorded.files, name) ? recorded.files[name] : undefined;
      const after = Object.hasOwn(served.files, name) ? served.files[name] : undefined;
      if (before === after) continue;
      changes.push({
        pointer: `/artifact/files/${name.replaceAll("~", "~0").replaceAll("/", "~1")}`,
        ...(before === undefined ? {} : { before }),
        ...(after === undefined ? {} : { after }),
      });
    }
    return changes;
  }
  return [{ pointer: "/artifact/kind", before: recorded.kind, after: served.kind }];
}

/**
 * The `artifact-changed` findings (critical) of server `server`: one per
 * member whose recorded value the registry now serves otherwise
 * ({@link compareArtifacts}). Pure.
 */
export function artifactFindings(server: string, recorded: Artifact, served: Artifact): Finding[] {
  return compareArtifacts(recorded, served).map((c) =>
    toFinding(
      {
        rule: "artifact-changed",
        pointer: c.pointer,
        ...(c.before === undefined ? {} : { before: c.before }),
        ...(c.after === undefined ? {} : { after: c.after }),
      },
      undefined,
      server,
    ),
  );
}

/** The `artifact-unchecked` finding of a server whose registry could not be asked: `after` says why. */
export function artifactUncheckedFinding(server: string, reason: string): Finding {
  return toFinding({ rule: "artifact-unchecked", after: reason }, undefined, server);
}

/**
 * The server as it is run: an image whose artifact is recorded runs by its
 * recorded manifest digest (`NAME@sha256:…` in place of `NAME:TAG`), so that
 * what verify checked is what starts, whatever the tag names now or the local
 * image store holds under it (SPEC.md 11.4). Any other server as it is. Pure.
 */
export function runsRecorded<T extends ServerSourceLike>(server: T & { artifact?: Artifact }): T {
  const artifact = server.artifact;
  if (artifact?.kind !== "image" || server.transport !== "stdio") return server;
  const command = (server as unknown as { command: string[] }).command;
  const pkg = runnerPackage(command);
  if (pkg?.ecosystem !== "docker" || pkg.name !== artifact.image || pkg.version !== artifact.tag)
    return server;
  const next = [...command];
  const arg = command[pkg.argIndex]!;
  next[pkg.argIndex] =
    `${arg.slice(0, arg.length - pkg.spec.length)}${pkg.name}@${artifact.digest}`;
  return { ...server, command: next };
}

/** What runsRecorded reads of a server. */
interface ServerSourceLike {
  transport: string;
}
