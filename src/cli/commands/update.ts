import { setMember } from "../../core/json/json-value.js";
import { keptConfigs } from "../../core/lock/lock-configs.js";
import { timestamp, type PinnedServer } from "../../core/lock/lock.js";
import { artifactNote } from "../../core/source/artifact.js";
import { firstSightFindings, notShown, shownFindings } from "../../core/findings/first-sight.js";
import { pinAll, requestsFromLock } from "../../engine/repin.js";
import { repinChanges } from "../../engine/repin-changes.js";
import { runnerFindings } from "../../engine/runner-review.js";
import { readLock, writeLock } from "../../io/lock-file.js";
import { snapshotFileAfterPin } from "../../io/snapshot-file.js";
import { checkPinTargets, recordSnapshots } from "../../io/snapshot-record.js";
import { parseCommandArgs } from "../args.js";
import {
  knownServers,
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
import { EXIT } from "../exit-code.js";
import type { Io } from "../io.js";
import { renderPinnedFindings } from "../render/audit-text.js";
import { PIN_JSON_HELP, renderPinJson } from "../render/pin-json.js";
import { launchFindings, renderChanges, renderWritten } from "../render/pin-text.js";

export const help = `Usage: contractpin update [NAME...] [options]

Re-reads the named servers (or every server in the lock), re-pins them, and
prints what it accepted as verify shows it: each changed tool's block, its
findings and the changes shared by several tools (a drifted tool's changes
from its old contract, in the snapshots, and its new one; without the old
one, unknown). Each server is read as the lock defines it, so its launch
line stays as pinned: init --force and upgrade --write change a launch line,
and say so with the change whole and marked. The lock is rewritten only when
something did change.
If any server cannot be read (or, with --repeat, reads differ), nothing is
written (exit 1).

Options:
${REPEAT_HELP}
${SURFACE_HELP}
${ARTIFACT_HELP}
${SNAPSHOT_HELP}
${LOCK_HELP}
${READ_HELP}
${PIN_JSON_HELP}
  --help               show this help

What the findings rules (docs/findings.md) find in the re-pinned tools, as if
each server had been empty before, is printed for review; the pin stands
('contractpin audit' fails CI on it).

Exit codes: 0 updated; 1 a server could not be read; 2 bad arguments, unknown
server, missing or corrupt lock.

Examples:
  contractpin update
  contractpin update memory --repeat 3
  contractpin update search --resources
`;

export async function run(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    "update",
    args,
    {
      ...LOCK_OPTIONS,
      ...READ_OPTIONS,
      ...SNAPSHOT_OPTIONS,
      ...REPEAT_OPTIONS,
      ...SURFACE_OPTIONS,
      ...ARTIFACT_OPTIONS,
      json: { type: "boolean" },
    },
    Infinity,
  );
  const lockFile = await lockPath(values, io);
  const { ctx, concurrency } = readContext(lockFile, values, io);
  const repeat = repeatCount(values);
  const surface = surfaceRequest(values);
  if (surface !== undefined) ctx.surface = surface;
  const previous = await readLock(lockFile);
  const names =
    positionals.length > 0 ? [...new Set(positionals)] : Object.keys(previous.servers).sort();
  knownServers(names, previous.servers, lockFile);
  checkPinTargets(lockFile, values["no-snapshot"] !== true);
  const requests = await withArtifacts(
    requestsFromLock(names, previous.servers),
    values.artifacts,
    io,
  );
  const report = pinProgress(requests, io, ctx.env);
  const repinned = await pinAll(requests, ctx, concurrency, repeat, (name, ok, seconds) =>
    // A read cut short by Ctrl-C is not a server that could not be read.
    io.signal?.aborted
      ? undefined
      : report?.done({ name, status: ok ? "ok" : "unreachable" }, seconds),
  );
  const servers: Record<string, PinnedServer> = { ...previous.servers };
  for (const [name, { server }] of repinned) setMember(servers, name, server);
  // Before the snapshots are rewritten: they hold the old contracts.
  const changes = await repinChanges(lockFile, previous.servers, names, repinned);
  const scopes = new Map<string, string>();
  for (const name of names) {
    const before = previous.servers[name]!.surface;
    const after = servers[name]!.surface;
    if (before === undefined && after !== undefined)
      scopes.set(name, "now pins its instructions, prompts and resource templates too");
    if (before !== undefined && after === undefined) scopes.set(name, "now pins its tools only");
    const artifact = artifactNote(previous.servers[name]!.artifact, servers[name]!.artifact);
    if (artifact !== undefined)
      scopes.set(name, [scopes.get(name), artifact].filter((l) => l !== undefined).join("\n"));
  }
  const written = await writeLock(
    lockFile,
    { generated_at: timestamp(new Date()), servers, ...keptConfigs(previous, servers) },
    previous,
    { signal: io.signal },
  );
  let snapshotWritten = false;
  if (values["no-snapshot"] !== true) {
    snapshotWritten = await recordSnapshots(lockFile, await readLock(lockFile), repinned, {
      create: true,
      warn: warner(io),
    });
  }
  // What each re-pinned server runs: a package without an exact version is a finding of its own.
  const runners = await runnerFindings(names, servers, ctx, concurrency);
  const reports = names.map((name, i) => ({
    name,
    server: servers[name]!,
    change: changes.findings[i]!,
    // The launch line's findings first: they are about this re-pin, not the tools' text.
    findings: [
      ...launchFindings(changes.explained.get(name)),
      ...(runners.has(name) ? [runners.get(name)!] : []),
      ...firstSightFindings(name, repinned.get(name)!),
    ],
  }));
  if (values.json === true) {
    await io.out(renderPinJson(lockFile, reports, written));
    return EXIT.OK;
  }
  await io.out(renderChanges(changes.findings, changes.explained, scopes));
  for (const r of reports) {
    const review = notShown(r.findings, shownFindings(changes.explained?.get(r.name)));
    await io.out(renderPinnedFindings(r.name, review, io.color, values.lock));
  }
  const snapshots = snapshotFileAfterPin(lockFile, snapshotWritten);
  await io.out(renderWritten({ path: lockFile, written }, snapshots));
  return EXIT.OK;
}
