import { homedir } from "node:os";
import { dirname, isAbsolute, relative, resolve, sep } from "node:path";
import { GUARD_SKIP } from "../../config/import-config.js";
import { sortedUnique, type LockConfigs } from "../../core/lock/lock-configs.js";
import type { ImportedConfigs } from "../../config/discover.js";
import { ContractpinError } from "../../core/errors.js";
import { artifactNote } from "../../core/source/artifact.js";
import { setMember } from "../../core/json/json-value.js";
import { timestamp, type Lock } from "../../core/lock/lock.js";
import { unsetVariables } from "../../core/source/server-source.js";
import { pinAll, requestsFromLock, type PinRequest } from "../../engine/repin.js";
import { repinChanges } from "../../engine/repin-changes.js";
import { runnerFindings } from "../../engine/runner-review.js";
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
  withArtifacts,
  surfaceRequest,
  lockPath,
  pinProgress,
  warner,
} from "../common.js";
import { checkConfigOptions, nothingFound } from "../config-files.js";
import { EXIT } from "../exit-code.js";
import type { Io } from "../io.js";
import { firstSightFindings, notShown, shownFindings } from "../../core/findings/first-sight.js";
import { renderPinnedFindings } from "../render/audit-text.js";
import { PIN_JSON_HELP, renderPinJson } from "../render/pin-json.js";
import {
  launchFindings,
  renderChanges,
  renderNotPinned,
  renderNotReadLine,
  renderPinned,
  renderWritten,
  type NotRead,
} from "../render/pin-text.js";
import { displayName, sanitizeLine } from "../render/style.js";

export const help = `Usage: contractpin init [--from PATH]... [--user] [--unpinned NAME]... [--force]
                        [options]

Pins servers into a fresh lock. Where the servers come from:
  --from PATH          every server of these MCP client config files (format
                       recognised by content: Claude Desktop, Claude Code,
                       VS Code, Cursor, Windsurf, Codex, Gemini CLI, Zed,
                       Cline; Continue's by a .yaml or .yml name)
  (no --from)          the project's client configs in the current directory:
                       .mcp.json, .vscode/mcp.json, .cursor/mcp.json,
                       .zed/settings.json, .gemini/settings.json,
                       .continue/mcpServers/*.yaml; with
                       --user also the user-level ones (see docs/configs.md);
                       if there are none, the servers the lock defines; and
                       without a lock either, an empty lock for 'contractpin add'

Servers of an existing lock that no config names are kept and re-pinned.
Disabled servers are skipped and listed, as is a server whose VS Code
\${input:ID} has no value (set CONTRACTPIN_INPUT_ID to pin it) and a server
that refers to a \${VAR} that is not set (its pin in an existing lock is kept
as it was, unread); the others are pinned, and a closing line names every
server not pinned. A skipped server leaves the exit code at 0; verify fails
on a pinned server whose variable is not set. \${workspaceFolder} is written relative to
the lock's directory, so the lock works in every clone. A literal secret in a
config is never written: the lock refers to an environment variable instead (a
warning names it), or the server is skipped with the reason.

The lock records the configs it read that lie in or under its directory
(configs.files) and the servers of those configs it leaves unpinned: those
named with --unpinned and those skipped (configs.unpinned). verify and check
then read the same configs on every clone and fail on any other server in
them, and on a pinned server whose entry launches something else (see
docs/configs.md). --unpinned is not remembered: give it again with --force.

An existing lock is never overwritten without --force (exit 2). With --force,
every server is re-read and pinned afresh: this is how a legitimate change
(a new tool, a changed description) is accepted; what it accepted is printed
as update prints it, and a server whose launch line changed (command, its
environment variables' names, cwd, URL, headers) says so, each changed part
whole with what changed marked [-removed-] {+added+}, even when its tools are
the same. If any server cannot be read (or, with --repeat, its reads differ),
nothing is written (exit 1).

Options:
  --from PATH          import this config file (repeatable)
  --user               also discover the user-level configs
  --unpinned NAME      leave the configs' server NAME unpinned on purpose, and
                       record it so that verify stays quiet about it (repeatable)
  --force              overwrite an existing lock
${REPEAT_HELP}
${SURFACE_HELP}
${ARTIFACT_HELP}
${SNAPSHOT_HELP}
${LOCK_HELP}
${READ_HELP}
${PIN_JSON_HELP}
  --help               show this help

What the findings rules (docs/findings.md) find in the pinned tools, as if each
server had been empty before, is printed for review; the pin stands
('contractpin audit' fails CI on it).

Exit codes: 0 written; 1 a server could not be read; 2 the lock exists (without
--force), a config or the lock is malformed, two configs define one name, or
bad arguments.

Examples:
  contractpin init
  contractpin init --from .vscode/mcp.json --force
  contractpin init --user --repeat 2
`;

export async function run(args: string[], io: Io): Promise<number> {
  const { values } = parseCommandArgs(
    "init",
    args,
    {
      ...LOCK_OPTIONS,
      ...READ_OPTIONS,
      ...SNAPSHOT_OPTIONS,
      ...REPEAT_OPTIONS,
      ...SURFACE_OPTIONS,
      ...ARTIFACT_OPTIONS,
      force: { type: "boolean" },
      from: { type: "string", multiple: true },
      user: { type: "boolean" },
      unpinned: { type: "string", multiple: true },
      json: { type: "boolean" },
    },
    0,
  );
  const lockFile = await lockPath(values, io);
  const { ctx, concurrency } = readContext(lockFile, values, io);
  const repeat = repeatCount(values);
  const surface = surfaceRequest(values);
  if (surface !== undefined) ctx.surface = surface;
  const previous = await readLockIfExists(lockFile);
  if (previous !== undefined && values.force !== true) {
    throw new ContractpinError(
      "LOCK_EXISTS",
      `${lockFile} already exists; 'contractpin init --force' re-pins every server, 'contractpin update' re-pins some`,
    );
  }
  checkConfigOptions("init", values);
  checkPinTargets(lockFile, values["no-snapshot"] !== true);

  const { imported, searched, userConfigs } = await importFromConfigs(
    values.from,
    values.user === true,
    dirname(resolve(lockFile)),
  );
  let requests: PinRequest[];
  // The configs' servers the import skipped (disabled, an \${input:ID} without a value, ...).
  const skipped = imported.skipped.map((s) => s.name);
  // Left unpinned on purpose (--unpinned) or skipped: recorded, so that verify stays quiet about them.
  const leave = new Set(values.unpinned ?? []);
  const unpinned = [
    ...leave,
    ...imported.skipped.filter((s) => s.reason !== GUARD_SKIP).map((s) => s.name),
  ];
  if (imported.files.length > 0 || values.from !== undefined) {
    await reportImport(imported, io);
    requests = imported.servers
      .filter((s) => !leave.has(s.name))
      .map((s) => ({
        name: s.name,
        source: s.source,
        extraEnv: s.secretValues,
      }));
    // Servers pinned with 'add' that no config names are kept, never dropped silently.
    const fromConfigs = new Set(requests.map((r) => r.name));
    const kept = Object.keys(previous?.servers ?? {})
      .filter((name) => !fromConfigs.has(name) && !leave.has(name))
      .sort();
    for (const name of kept) {
      await io.err(`contractpin: keeping ${displayName(name)}: in the lock, in no config\n`);
    }
    requests.push(...requestsFromLock(kept, previous?.servers ?? {}));
  } else {
    requests = requestsFromLock(
      Object.keys(previous?.servers ?? {}).sort(),
      previous?.servers ?? {},
    );
    // Nothing to pin at all: say where init looked, so a config in the wrong place is found.
    if (requests.length === 0) {
      await io.err(`${nothingFound(searched, values.user === true, "nothing to pin")}\n`);
    }
  }

  // A server that refers to a variable that is not set cannot be read: the
  // others are pinned, it is named (and a pin of it kept as it was), so one
  // teammate's missing secret blocks no one and needs no dummy value.
  const notRead: NotRead[] = [];
  requests = requests.filter((r) => {
    const variables = unsetVariables(r.source, { ...ctx.env, ...r.extraEnv });
    if (variables.length === 0) return true;
    notRead.push({ name: r.name, variables, kept: Object.hasOwn(previous?.servers ?? {}, r.name) });
    return false;
  });
  for (const server of notRead) await io.err(renderNotReadLine(server));
  // A server whose pin records its artifact keeps recording it (the lock says so).
  const recorded = requests.filter((r) => previous?.servers[r.name]?.artifact !== undefined);
  const asked = new Map(
    [
      ...(await withArtifacts(
        requests.filter((r) => !recorded.includes(r)),
        values.artifacts,
        io,
      )),
      ...(await withArtifacts(recorded, true, io)),
    ].map((r) => [r.name, r.artifact === true]),
  );
  requests = requests.map((r) => (asked.get(r.name) === true ? { ...r, artifact: true } : r));

  // Object.fromEntries defines own properties, so a server named __proto__ survives.
  const report = pinProgress(requests, io, ctx.env);
  const pinned = await pinAll(requests, ctx, concurrency, repeat, (name, ok, seconds) =>
    // A read cut short by Ctrl-C is not a server that could not be read.
    io.signal?.aborted
      ? undefined
      : report?.done({ name, status: ok ? "ok" : "unreachable" }, seconds),
  );
  const servers = Object.fromEntries([...pinned].map(([name, p]) => [name, p.server]));
  for (const { name, kept } of notRead)
    if (kept) setMember(servers, name, previous!.servers[name]!);
  // What a re-pin changed, before the snapshots (the old contracts) are rewritten.
  const before = previous?.servers ?? {};
  const repinned = requests.map((r) => r.name).filter((name) => Object.hasOwn(before, name));
  const changes = await repinChanges(lockFile, before, repinned.sort(), pinned);
  const lock: Lock = { generated_at: timestamp(new Date()), servers };
  // A server not read for want of a variable is not pinned: left unpinned until someone who has it pins it.
  for (const { name, kept } of notRead) if (!kept) unpinned.push(name);
  const covered = imported.files.filter((f) => !userConfigs.has(resolve(f)));
  const configs = coveredConfigs(covered, dirname(resolve(lockFile)), unpinned, servers);
  if (configs !== undefined) lock.configs = configs;
  const written = await writeLock(lockFile, lock, previous, {
    signal: io.signal,
    // Without --force, a lock another command created meanwhile is not touched.
    exclusive: values.force !== true,
  });
  let snapshotWritten = false;
  if (values["no-snapshot"] !== true) {
    snapshotWritten = await recordSnapshots(lockFile, await readLock(lockFile), pinned, {
      create: true,
      warn: warner(io),
    });
  }
  // What each pinned server runs: a package without an exact version is a finding of its own.
  const runners = await runnerFindings(
    requests.map((r) => r.name),
    lock.servers,
    ctx,
    concurrency,
  );
  const review = (name: string) => {
    const runner = runners.get(name);
    return [
      ...(runner === undefined ? [] : [runner]),
      ...firstSightFindings(name, pinned.get(name)!),
    ];
  };
  if (values.json === true) {
    const changeOf = new Map(changes.findings.map((f) => [f.name, f]));
    const names = requests.map((r) => r.name).sort();
    const reports = names.map((name) => ({
      name,
      server: lock.servers[name]!,
      ...(changeOf.has(name) ? { change: changeOf.get(name)! } : {}),
      // The launch line's findings first: they are about this re-pin, not the tools' text.
      findings: [...launchFindings(changes.explained.get(name)), ...review(name)],
    }));
    await io.out(renderPinJson(lockFile, reports));
  } else if (requests.length === 0 && notRead.length === 0) {
    await io.out(`created ${lockFile} with no servers; pin one with 'contractpin add NAME ...'\n`);
  } else {
    // A re-pin (init --force) says what it accepted, as update does.
    const names = requests.map((r) => r.name).sort();
    if (repinned.length > 0) {
      // A re-pin that records an artifact anew says so, as update does.
      const notes = new Map<string, string>();
      for (const name of repinned) {
        const note = artifactNote(before[name]!.artifact, lock.servers[name]!.artifact);
        if (note !== undefined) notes.set(name, note);
      }
      await io.out(renderChanges(changes.findings, changes.explained, notes));
    }
    for (const name of names.filter((n) => !Object.hasOwn(before, n))) {
      await io.out(renderPinned("pinned", name, lock.servers[name]!, lockFile));
    }
    for (const name of names) {
      const findings = notShown(review(name), shownFindings(changes.explained?.get(name)));
      await io.out(renderPinnedFindings(name, findings, io.color, values.lock));
    }
    const snapshots = snapshotFileAfterPin(lockFile, snapshotWritten);
    await io.out(renderWritten({ path: lockFile, written }, snapshots));
    await io.out(renderNotPinned(notRead, skipped));
    if (lock.configs !== undefined && lock.configs.unpinned.length > 0) {
      await io.out(
        `left unpinned on purpose (configs.unpinned; verify does not fail on them): ${lock.configs.unpinned.map((n) => displayName(n)).join(", ")}\n`,
      );
    }
  }
  return EXIT.OK;
}

/**
 * The lock's `configs` member (SPEC.md 12): the project configs read that
 * lie in or under the lock's directory (never a user-level one), as
 * paths relative to it, and the names left unpinned that the lock does not
 * pin. Undefined when both are empty.
 */
function coveredConfigs(
  files: readonly string[],
  lockDir: string,
  unpinned: readonly string[],
  servers: Readonly<Record<string, unknown>>,
): LockConfigs | undefined {
  const covered = files.flatMap((file) => {
    const rel = relative(lockDir, resolve(file));
    return rel === "" || rel.startsWith("..") || isAbsolute(rel) ? [] : [rel.split(sep).join("/")];
  });
  const configs = {
    files: sortedUnique(covered),
    unpinned: sortedUnique(unpinned.filter((name) => !Object.hasOwn(servers, name))),
  };
  return configs.files.length === 0 && configs.unpinned.length === 0 ? undefined : configs;
}

/** The servers of the configs named by --from, or of the discovered ones, and the files searched. */
async function importFromConfigs(
  from: string[] | undefined,
  user: boolean,
  lockDir: string,
): Promise<{ imported: ImportedConfigs; searched: string[]; userConfigs: Set<string> }> {
  // Loaded here, not at start-up: only init reads client configs (and TOML).
  const { configLocations, importConfigs, selectConfigs } =
    await import("../../config/discover.js");
  const projectDir = process.cwd();
  const home = homedir();
  const { paths, required, searched } = selectConfigs(from, user, { projectDir, home });
  return {
    imported: await importConfigs(paths, {
      projectDir,
      home,
      required,
      lockDir,
      env: process.env,
    }),
    searched,
    // A user-level config is this machine's, not the project's: the lock never covers it.
    userConfigs: new Set(
      configLocations({ projectDir, home, platform: process.platform, env: process.env })
        .filter((l) => l.scope === "user")
        .map((l) => resolve(l.path)),
    ),
  };
}

/**
 * What init read and passed over. A config's file name and the server names
 * in it are a repository's text: each line is made safe as wrap's output is
 * (sanitizeLine, displayName), so no escape sequence reaches a terminal and
 * no line feed starts a CI workflow command.
 */
async function reportImport(imported: ImportedConfigs, io: Io): Promise<void> {
  for (const file of imported.files) await io.err(`contractpin: reading ${sanitizeLine(file)}\n`);
  for (const warning of imported.warnings)
    await io.err(`contractpin: warning: ${sanitizeLine(warning)}\n`);
  for (const s of imported.skipped) {
    await io.err(
      `contractpin: skipped ${displayName(s.name)} (${sanitizeLine(s.file)}): ${sanitizeLine(s.reason)}\n`,
    );
  }
}
