import { relative, resolve, sep } from "node:path";
import { keptConfigs } from "../../core/lock/lock-configs.js";
import { parseArgs } from "node:util";
import { ContractpinError } from "../../core/errors.js";
import { checkUrl, parseEnv, parseHeaders } from "../server-options.js";
import { AUTH_HELP, AUTH_OPTIONS, authFromOptions } from "../auth-options.js";
import { timestamp, type Lock } from "../../core/lock/lock.js";
import { setMember } from "../../core/json/json-value.js";
import type { ServerSource } from "../../core/source/server-source.js";
import { safeSource } from "../../core/source/source-policy.js";
import { packageRunnerWarning } from "../../core/source/package-runner.js";
import { firstSightFindings } from "../../core/findings/first-sight.js";
import { readStable } from "../../engine/pin.js";
import { runnerFindings } from "../../engine/runner-review.js";
import { noArtifact, recordArtifact } from "../../engine/artifact.js";
import { runsRecorded, type Artifact } from "../../core/source/artifact.js";
import { readLock, readLockIfExists, writeLock } from "../../io/lock-file.js";
import { snapshotFileAfterPin } from "../../io/snapshot-file.js";
import { checkPinTargets, recordSnapshots } from "../../io/snapshot-record.js";
import { parseCommandArgs } from "../args.js";
import {
  LOCK_HELP,
  LOCK_OPTIONS,
  SNAPSHOT_HELP,
  SNAPSHOT_OPTIONS,
  READ_HELP,
  READ_OPTIONS,
  readContext,
  repeatCount,
  REPEAT_HELP,
  REPEAT_OPTIONS,
  SURFACE_HELP,
  SURFACE_OPTIONS,
  ARTIFACT_HELP,
  ARTIFACT_OPTIONS,
  surfaceRequest,
  lockPath,
  pinProgress,
  warner,
} from "../common.js";
import { EXIT } from "../exit-code.js";
import type { Io } from "../io.js";
import { renderPinnedFindings } from "../render/audit-text.js";
import { PIN_JSON_HELP, renderPinJson } from "../render/pin-json.js";
import { renderPinned, renderWritten } from "../render/pin-text.js";
import { lockWords, shellWord } from "../render/shell.js";

export const help = `Usage: contractpin add NAME (--file PATH | --url URL [--header 'K: V']... | -- COMMAND [ARG...])
                       [--env K=V]... [--cwd DIR] [--auth MODE ...] [options]

Reads one server and pins it into the lock, creating the lock if needed.

Sources (exactly one):
  --file PATH          a tools/list dump (a result, a JSON-RPC response, or an array of pages)
  --url URL            a Streamable HTTP (or legacy SSE) endpoint
  -- COMMAND [ARG...]  a stdio server, spawned directly (no shell)

Options:
  --header 'K: V'      an HTTP header (repeatable). Only a value with a \${VAR} reference,
                       such as 'Authorization: Bearer \${TOKEN}', is written to the lock
                       (and expanded from the environment at run time). A literal value
                       that looks like a credential is refused (exit 2), as with --env;
                       any other literal is used for this read and never written
  --env K=V            environment for a stdio server (repeatable). Write secrets as
                       references: --env 'API_KEY=\${API_KEY}'. A literal value whose name or
                       shape looks like a credential is refused (exit 2)
  --cwd DIR            working directory of a stdio server
${AUTH_HELP}
${REPEAT_HELP}
${SURFACE_HELP}
${ARTIFACT_HELP}
${SNAPSHOT_HELP}
${LOCK_HELP}
${READ_HELP}
${PIN_JSON_HELP}
  --help               show this help

Paths (--file, --cwd) are written relative to the lock's directory.
What the findings rules (docs/findings.md) find in the pinned tools, as if the
server had been empty before, is printed after the pin for review; the pin
stands ('contractpin audit' fails CI on it).

Exit codes: 0 pinned; 1 the server could not be read (or, with --repeat, its reads
differ); 2 bad arguments or lock.

Examples:
  contractpin add memory -- npx -y @modelcontextprotocol/server-memory@2026.8.31
  contractpin add search --url https://mcp.example.com/mcp --header 'Authorization: Bearer \${SEARCH_TOKEN}'
  contractpin add docs --file docs.tools.json --tools-only
`;

export async function run(args: string[], io: Io): Promise<number> {
  const dashes = args.indexOf("--");
  const own = dashes === -1 ? args : args.slice(0, dashes);
  const command = dashes === -1 ? [] : args.slice(dashes + 1);
  const { values, positionals } = parseAddArgs(own, dashes === -1);
  const lockFile = await lockPath(values, io);
  const name = positionals[0];
  if (name === undefined || name === "") throw usage("add needs a server NAME");
  const { ctx } = readContext(lockFile, values, io);
  const repeat = repeatCount(values);
  const surface = surfaceRequest(values);
  if (surface !== undefined) ctx.surface = surface;
  const given = [values.file, values.url, dashes === -1 ? undefined : command].filter(
    (x) => x !== undefined,
  );
  if (given.length !== 1)
    throw usage("add needs exactly one source: --file PATH, --url URL, or -- COMMAND [ARG...]");

  let source: ServerSource;
  if (values.file !== undefined) {
    source = { transport: "file", path: lockRelative(ctx.lockDir, values.file) };
  } else if (values.url !== undefined) {
    checkUrl(values.url, usage);
    source = {
      transport: "http",
      url: values.url,
      headers: parseHeaders(values.header ?? [], usage),
    };
    const auth = authFromOptions(values, usage);
    if (auth !== undefined) source.auth = auth;
  } else {
    if (command.length === 0) throw usage("add needs a COMMAND after --");
    source = { transport: "stdio", command };
    if (values.env !== undefined) source.env = parseEnv(values.env, usage);
    // The server runs where add was run: a command with relative paths (node
    // server.js, ./dist) must find them again when the lock is verified.
    const cwd = values.cwd ?? ".";
    if (values.cwd !== undefined || resolve(cwd) !== ctx.lockDir)
      source.cwd = lockRelative(ctx.lockDir, cwd);
  }
  if (source.transport !== "stdio" && (values.env !== undefined || values.cwd !== undefined)) {
    throw usage("--env and --cwd apply only to a stdio server (-- COMMAND)");
  }
  if (source.transport !== "http" && values.header !== undefined)
    throw usage("--header applies only to --url");
  if (source.transport !== "http" && values.auth !== undefined)
    throw usage("--auth applies only to --url");

  const { source: safe, warnings } = safeSource(name, source);
  // Only after the credential scan has passed: the runner's parse of the
  // arguments may take any of them for the package it names.
  if (source.transport === "stdio") {
    const runner = packageRunnerWarning(`server ${name}`, source.command);
    if (runner !== undefined) warnings.push(runner);
  }
  const previous = await readLockIfExists(lockFile);
  if (previous !== undefined && Object.hasOwn(previous.servers, name)) {
    throw usage(
      `server '${name}' is already pinned in ${lockFile}; re-pin it with: contractpin update${lockWords(values.lock)} ${shellWord(name)}`,
    );
  }
  if (values.artifacts === true) {
    const why = noArtifact(source);
    if (why !== undefined) throw usage(`--artifacts records nothing for server '${name}': ${why}`);
  }
  checkPinTargets(lockFile, values["no-snapshot"] !== true);
  for (const w of warnings) await io.err(`contractpin: warning: ${w}\n`);

  // The read uses the headers as given; the lock gets only the safe definition.
  const report = pinProgress([{ name, source }], io, ctx.env);
  const started = process.hrtime.bigint();
  const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
  let read;
  let artifact: Artifact | undefined;
  try {
    // The artifact first: an image is then read by the digest recorded.
    if (values.artifacts === true) artifact = await recordArtifact(name, source, ctx);
    read = await readStable(
      name,
      artifact === undefined ? source : runsRecorded({ ...source, artifact }),
      ctx,
      repeat,
    );
  } catch (err) {
    if (io.signal?.aborted !== true) report?.done({ name, status: "unreachable" }, seconds());
    throw err;
  }
  report?.done({ name, status: "ok" }, seconds());
  const { digests, contracts, surfaceContracts } = read;
  const servers = { ...(previous?.servers ?? {}) };
  setMember(servers, name, {
    ...safe,
    ...digests,
    ...(artifact === undefined ? {} : { artifact }),
  });
  const lock: Lock = {
    generated_at: timestamp(new Date()),
    servers,
    ...keptConfigs(previous, servers),
  };
  await writeLock(lockFile, lock, previous, { signal: io.signal });
  let snapshotWritten = false;
  if (values["no-snapshot"] !== true) {
    const pinned = new Map([
      [name, { server: digests, contracts, ...(surfaceContracts ? { surfaceContracts } : {}) }],
    ]);
    snapshotWritten = await recordSnapshots(lockFile, await readLock(lockFile), pinned, {
      create: true,
      warn: warner(io),
    });
  }
  // What runs first: a package without an exact version, with the one that would run now.
  const runner = (await runnerFindings([name], servers, ctx, 1)).get(name);
  const findings = [
    ...(runner === undefined ? [] : [runner]),
    ...firstSightFindings(name, { contracts, ...(surfaceContracts ? { surfaceContracts } : {}) }),
  ];
  if (values.json === true) {
    await io.out(renderPinJson(lockFile, [{ name, server: servers[name]!, findings }]));
  } else {
    await io.out(renderPinned("pinned", name, servers[name]!, lockFile));
    await io.out(renderPinnedFindings(name, findings, io.color, values.lock));
    const snapshots = snapshotFileAfterPin(lockFile, snapshotWritten);
    await io.out(renderWritten({ path: lockFile, written: true }, snapshots));
  }
  return EXIT.OK;
}

/** A path as the lock stores it: relative to the lock's directory, with forward slashes. */
function lockRelative(lockDir: string, path: string): string {
  const rel = relative(lockDir, resolve(path));
  return (rel === "" ? "." : rel).split(sep).join("/");
}

function usage(message: string): ContractpinError {
  return new ContractpinError("USAGE", `${message} (see 'contractpin add --help')`);
}

const ADD_OPTIONS = {
  ...LOCK_OPTIONS,
  ...READ_OPTIONS,
  ...SNAPSHOT_OPTIONS,
  ...REPEAT_OPTIONS,
  ...SURFACE_OPTIONS,
  ...ARTIFACT_OPTIONS,
  file: { type: "string" },
  url: { type: "string" },
  header: { type: "string", multiple: true },
  env: { type: "string", multiple: true },
  cwd: { type: "string" },
  ...AUTH_OPTIONS,
  json: { type: "boolean" },
} as const;

/**
 * add's options and NAME. Without '--', a stdio command typed straight after
 * NAME ("add memory npx -y pkg", the shape other tools take) would be refused
 * for its first option ('-y') rather than for the missing '--': both shapes
 * get the one line that says what to write. The arguments are not echoed:
 * one of them may be a credential.
 */
function parseAddArgs(own: string[], noDashes: boolean) {
  const dashesHint = () =>
    usage(
      `add takes one NAME; to pin a stdio server, put '--' before its command: contractpin add NAME -- COMMAND [ARG...]`,
    );
  let parsed;
  try {
    parsed = parseCommandArgs("add", own, ADD_OPTIONS, Infinity);
  } catch (err) {
    if (noDashes && commandAfterName(own)) throw dashesHint();
    throw err;
  }
  if (parsed.positionals.length > 1) throw dashesHint();
  return parsed;
}

/** Whether a second positional (a command) comes before any option add does not know. */
function commandAfterName(args: string[]): boolean {
  let tokens;
  try {
    ({ tokens } = parseArgs({
      args,
      options: ADD_OPTIONS,
      allowPositionals: true,
      strict: false,
      tokens: true,
    }));
  } catch {
    return false;
  }
  let positionals = 0;
  for (const token of tokens) {
    if (token.kind === "positional" && ++positionals === 2) return true;
    if (token.kind === "option" && !(token.name in ADD_OPTIONS)) return false;
  }
  return false;
}
