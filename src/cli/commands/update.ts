import { compareSurface, withSurface } from "../../core/surface/compare-surface.js";
import { compareServer } from "../../core/compare.js";
import { setMember } from "../../core/json-value.js";
import { timestamp, type PinnedServer } from "../../core/lock.js";
import { pinAll, requestsFromLock } from "../../engine/repin.js";
import { readLock, writeLock } from "../../io/lock-file.js";
import { recordSnapshots } from "../../io/snapshot-file.js";
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
  surfaceRequest,
  lockPath,
  warner,
} from "../common.js";
import { EXIT } from "../exit-code.js";
import type { Io } from "../io.js";
import { renderChanges } from "../render/pin-text.js";

export const help = `Usage: contractpin update [NAME...] [options]

Re-reads the named servers (or every server in the lock), re-pins them, and
prints what changed. The lock is rewritten only when something did change.
If any server cannot be read (or, with --repeat, reads differ), nothing is
written (exit 1).

Options:
${REPEAT_HELP}
${SURFACE_HELP}
${SNAPSHOT_HELP}
${LOCK_HELP}
${READ_HELP}
  --help               show this help

Exit codes: 0 updated; 1 a server could not be read; 2 bad arguments, unknown
server, missing or corrupt lock.
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
  const repinned = await pinAll(
    requestsFromLock(names, previous.servers),
    ctx,
    concurrency,
    repeat,
  );
  const servers: Record<string, PinnedServer> = { ...previous.servers };
  for (const [name, { server }] of repinned) setMember(servers, name, server);
  const scopes = new Map<string, string>();
  const changes = names.map((name) => {
    const before = previous.servers[name]!;
    const after = servers[name]!;
    const finding = compareServer(name, before, after);
    if (before.surface === undefined && after.surface !== undefined)
      scopes.set(name, "now pins its instructions, prompts and resource templates too");
    if (before.surface !== undefined && after.surface === undefined)
      scopes.set(name, "now pins its tools only");
    return before.surface === undefined || after.surface === undefined
      ? finding
      : withSurface(finding, compareSurface(before.surface, after.surface));
  });
  const written = await writeLock(
    lockFile,
    { generated_at: timestamp(new Date()), servers },
    previous,
    { signal: io.signal },
  );
  if (values["no-snapshot"] !== true) {
    await recordSnapshots(lockFile, await readLock(lockFile), repinned, {
      create: true,
      warn: warner(io),
    });
  }
  await io.out(
    renderChanges(changes, scopes) +
      (written ? `wrote ${lockFile}\n` : `${lockFile} is unchanged\n`),
  );
  return EXIT.OK;
}
