import type { Contract } from "../core/contract/contract.js";
import { isPinnedEntry, type ServerDigests } from "../core/contract/digest.js";
import { isContractpinError } from "../core/errors.js";
import { setMember } from "../core/json/json-value.js";
import type { SurfaceContracts } from "../core/surface/surface.js";
import {
  member,
  readSnapshot,
  replaceableSnapshot,
  snapshotPath,
  writeSnapshot,
  type Snapshot,
} from "./snapshot-file.js";
import { prunedSurfaceEntry, surfaceEntry } from "./snapshot-surface.js";
import { checkoutBases, refuseLinks } from "./write-target.js";

/**
 * The snapshots kept in line with the lock after a pin (init, add, update,
 * upgrade --write, remove): the entries of the servers just pinned replaced,
 * those of removed servers dropped, every other entry kept only while it
 * matches the lock. The file itself (its format, reading, writing) is
 * snapshot-file.ts.
 */

/**
 * Refuses a pin whose files contractpin may not write, before any server is
 * read, so that the refusal writes nothing at all: the lock a symbolic link
 * (or in a folder of the checkout that is one), or, when the command writes
 * the snapshots, the sidecar a link or a file that is not a contract
 * snapshot file (src/io/write-target.ts, replaceableSnapshot). Every command
 * that writes the lock (init, add, update, remove, upgrade --write) calls it
 * first; the writes check again.
 *
 * @param snapshots whether the command writes the sidecar (false for --no-snapshot).
 * @throws ContractpinError WRITE_REFUSED (exit 2), one line.
 */
export function checkPinTargets(lockPath: string, snapshots: boolean): void {
  refuseLinks(lockPath, checkoutBases(), "the lock");
  if (snapshots) replaceableSnapshot(snapshotPath(lockPath));
}

/**
 * Brings the sidecar of `lockPath` in line with `lock`, the lock as now
 * written, after a pin: the servers in `pinned` get their contracts as just
 * read (when the lock holds that very pin), the servers in `removed` lose
 * theirs, and entries of other servers are kept only while they match the
 * lock. A file in its place that is not a snapshot file is never replaced
 * (WRITE_REFUSED). Without `create`, a missing or unusable sidecar is left
 * as it is (remove). Written after the lock: a crash
 * between the two leaves entries that no longer match, which verify ignores.
 * A sidecar that cannot be written (a directory in its place, a full disk) is
 * one line for `warn`, not a failure: the lock, already written, is the pin,
 * and the snapshots are optional (--no-snapshot).
 *
 * @returns whether the sidecar was written.
 */
export async function recordSnapshots(
  lockPath: string,
  lock: { servers: Record<string, ServerDigests> },
  pinned: ReadonlyMap<
    string,
    { server: ServerDigests; contracts: readonly Contract[]; surfaceContracts?: SurfaceContracts }
  >,
  options: { create: boolean; removed?: readonly string[]; warn: (message: string) => void },
): Promise<boolean> {
  const path = snapshotPath(lockPath);
  const { snapshot } = await readSnapshot(path);
  if (snapshot === undefined && (!options.create || pinned.size === 0)) return false;
  // Pruned first, without the servers pinned now: only the others' entries need checking.
  let next: Snapshot = snapshot ?? { servers: {} };
  for (const name of [...pinned.keys(), ...(options.removed ?? [])]) {
    next = withoutServer(next, name);
  }
  next = pruneSnapshot(next, lock);
  for (const [name, { server, contracts, surfaceContracts }] of pinned) {
    const current = Object.hasOwn(lock.servers, name) ? lock.servers[name] : undefined;
    // Another command may have re-pinned it meanwhile: its contracts are not these.
    if (current?.digest === server.digest)
      next = withServer(next, name, contracts, surfaceContracts);
  }
  try {
    return await writeSnapshot(path, next);
  } catch (err) {
    if (!isContractpinError(err, "LOCK_WRITE_FAILED")) throw err;
    options.warn(`${err.message}; the pin in ${lockPath} stands without them`);
    return false;
  }
}

/**
 * A copy of `snapshot` holding only the entries that match `lock` (tools
 * pinned, digests equal): what to write after a pin, so that stale entries
 * and removed servers do not linger.
 */
export function pruneSnapshot(
  snapshot: Snapshot | undefined,
  lock: { servers: Record<string, ServerDigests> },
): Snapshot {
  const pruned: Snapshot = { servers: {} };
  for (const [server, pinned] of Object.entries(lock.servers)) {
    const tools = snapshot === undefined ? undefined : member(snapshot.servers, server);
    if (tools === undefined) continue;
    const kept: Record<string, unknown> = {};
    for (const [tool, digests] of Object.entries(pinned.tools)) {
      const entry = member(tools, tool);
      if (isPinnedEntry(entry, "name", tool, digests.digest)) setMember(kept, tool, entry);
    }
    setMember(pruned.servers, server, kept);
    const surface = prunedSurfaceEntry(snapshot?.surfaces?.[server], pinned.surface);
    if (
      surface !== undefined &&
      snapshot?.surfaces !== undefined &&
      Object.hasOwn(snapshot.surfaces, server)
    ) {
      pruned.surfaces ??= {};
      setMember(pruned.surfaces, server, surface);
    }
  }
  return pruned;
}

/**
 * The deepest nesting a snapshot entry may have. A pretty-printed value grows
 * with the square of its depth (each line is indented), and the printer
 * recurses; no real tool schema comes near this.
 */
export const MAX_SNAPSHOT_DEPTH = 100;

/**
 * A copy of `snapshot` with `server`'s entries replaced by `contracts` (for
 * init, add, update). A contract nested deeper than {@link MAX_SNAPSHOT_DEPTH}
 * is left out: that tool has no snapshot, which only costs its diff.
 */
export function withServer(
  snapshot: Snapshot | undefined,
  server: string,
  contracts: readonly Contract[],
  surfaceContracts?: SurfaceContracts,
): Snapshot {
  const next = withoutServer(snapshot, server);
  const tools: Record<string, unknown> = {};
  for (const contract of contracts) {
    if (!deeperThan(contract, MAX_SNAPSHOT_DEPTH)) setMember(tools, contract.name, contract);
  }
  setMember(next.servers, server, tools);
  if (surfaceContracts !== undefined) {
    const entry = surfaceEntry(surfaceContracts);
    if (!deeperThan(entry, MAX_SNAPSHOT_DEPTH + 2)) {
      next.surfaces ??= {};
      setMember(next.surfaces, server, entry);
    }
  }
  return next;
}

/** A copy of `snapshot` without `server` (for remove). */
export function withoutServer(snapshot: Snapshot | undefined, server: string): Snapshot {
  const next: Snapshot = { servers: {} };
  for (const [name, tools] of Object.entries(snapshot?.servers ?? {})) {
    if (name !== server) setMember(next.servers, name, tools);
  }
  for (const [name, entry] of Object.entries(snapshot?.surfaces ?? {})) {
    if (name === server) continue;
    next.surfaces ??= {};
    setMember(next.surfaces, name, entry);
  }
  return next;
}

/** True when `value` nests arrays and objects more than `limit` levels deep. Iterative. */
function deeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== "object" || v === null) continue;
    if (depth >= limit) return true;
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}
