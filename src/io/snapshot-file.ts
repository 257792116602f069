import { basename, dirname, join } from "node:path";
import { contractOf, type Contract } from "../core/contract.js";
import { isPinnedEntry, type Digest, type ServerDigests } from "../core/digest.js";
import { isContractpinError } from "../core/errors.js";
import { getMember, isJsonObject, setMember, type JsonObject } from "../core/json-value.js";
import { MAX_LOCK_BYTES } from "../core/limits.js";
import { escapeHiddenJson, prettyJson } from "../core/pretty-json.js";
import { parseJson } from "../core/strict-json.js";
import type { SurfaceContracts } from "../core/surface/surface.js";
import { writeFileAtomic } from "./atomic-write.js";
import { prunedSurfaceEntry, surfaceEntry, type SurfaceSnapshots } from "./snapshot-surface.js";
import { readRegularFile } from "./read-input.js";

/**
 * The sidecar beside the lock: the pinned contracts themselves, so that a
 * drift can be shown, not only detected. Its shape:
 *
 * ```json
 * { "contractpin-contracts": "1",
 *   "servers": { "<server>": { "<tool>": <contract object, spec 2> } } }
 * ```
 *
 * It never feeds a digest and never changes a verdict: each entry is used
 * only when its digest equals the lock's tool digest, and every problem with
 * the file or an entry is a warning, never an error.
 */

/** The member naming the sidecar's format, and its only version. */
export const SNAPSHOT_KEY = "contractpin-contracts";
export const SNAPSHOT_VERSION = "1";

/** The sidecar's content: entries as read, checked only when used. */
export interface Snapshot {
  /** Server name to tool name to contract; `__proto__` is an ordinary own key. */
  servers: Record<string, Record<string, unknown>>;
  /** Server name to its surface entry (SPEC.md 10.9), for servers that pin their surface. */
  surfaces?: SurfaceSnapshots;
}

/** The sidecar's path for a lock: `X.lock` gives `X.contracts.json`, any other name gains `.contracts.json`. */
export function snapshotPath(lockPath: string): string {
  const name = basename(lockPath);
  const stem = name.endsWith(".lock") && name.length > 5 ? name.slice(0, -5) : name;
  return join(dirname(lockPath), `${stem}.contracts.json`);
}

/** What {@link readSnapshot} found: a snapshot, or none with (perhaps) why. */
export interface SnapshotRead {
  snapshot?: Snapshot;
  /** One line for the warning sink, when a file exists but cannot be used. */
  warning?: string;
}

/**
 * Reads the sidecar at `path` with the strict parser. No file is no
 * snapshot, silently (it may have been opted out of); an unreadable, corrupt
 * or unknown-version file is no snapshot with a warning. Never throws for
 * the file's content.
 */
export async function readSnapshot(path: string, read?: Uint8Array): Promise<SnapshotRead> {
  let bytes: Uint8Array;
  try {
    bytes = read ?? readSidecar(path);
  } catch (err) {
    if (isMissing(err)) return {};
    return {
      warning: `${path}: cannot read the contract snapshots: ${whyUnreadable(err)}${FALLBACK}`,
    };
  }
  try {
    const root = parseJson(bytes);
    const version = isJsonObject(root) ? getMember(root, SNAPSHOT_KEY) : undefined;
    const servers = isJsonObject(root) ? getMember(root, "servers") : undefined;
    if (version !== SNAPSHOT_VERSION || !isJsonObject(servers)) {
      const what =
        version === undefined || !isJsonObject(servers)
          ? "is not a contract snapshot file"
          : `has format ${JSON.stringify(version)}, not "1"`;
      return { warning: `${path}: ${what}${FALLBACK}` };
    }
    const snapshot: Snapshot = { servers: {} };
    for (const [name, tools] of Object.entries(servers)) {
      if (isJsonObject(tools)) setMember(snapshot.servers, name, tools);
    }
    const surfaces = getMember(root as JsonObject, "surfaces");
    if (isJsonObject(surfaces)) {
      snapshot.surfaces = {};
      for (const [name, entry] of Object.entries(surfaces))
        if (isJsonObject(entry)) setMember(snapshot.surfaces, name, entry);
    }
    return { snapshot };
  } catch (err) {
    if (!isContractpinError(err)) throw err;
    return { warning: `${path}: the contract snapshots are corrupt: ${err.message}${FALLBACK}` };
  }
}

/** The end of every warning of the readers: what a report does without the snapshot. */
export const FALLBACK = "; the changed fields are unknown";

/** One tool's snapshot, or why there is none. */
export interface SnapshotEntry {
  contract?: Contract;
  /** One line for the warning sink when there is no usable entry. */
  warning?: string;
}

/**
 * The pinned contract of `tool` of `server`, when the snapshot holds an
 * entry whose digest (of the entry exactly as stored) is the lock's tool
 * digest `pinned`. A missing entry, a stale one (from another pin) or one
 * edited by hand gives no contract and a warning naming `file`.
 */
export function snapshotEntry(
  snapshot: Snapshot | undefined,
  server: string,
  tool: string,
  pinned: Digest,
  file = "the contract snapshots",
): SnapshotEntry {
  const where = `${file}: no snapshot of tool ${JSON.stringify(tool)} of server ${JSON.stringify(server)}`;
  const tools = snapshot === undefined ? undefined : member(snapshot.servers, server);
  const entry = tools === undefined ? undefined : member(tools, tool);
  if (entry === undefined) return { warning: `${where}${FALLBACK}` };
  if (!isPinnedEntry(entry, "name", tool, pinned)) {
    return { warning: `${where} matches the lock (stale or edited)${FALLBACK}` };
  }
  return { contract: contractOf(entry as JsonObject) };
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

/**
 * The sidecar's text: keys sorted, two-space indent, LF, a trailing newline
 * (like the lock). Every hidden or bidirectional character a server's text
 * holds is a `\u` escape (escapeHiddenJson), so that `git diff` or `cat` of
 * the file shows it instead of acting on it; the values are unchanged.
 */
export function renderSnapshot(snapshot: Snapshot): string {
  const surfaces = snapshot.surfaces ?? {};
  // `surfaces` only when a server pins its surface: a tools-only file is as before.
  const text = prettyJson({
    [SNAPSHOT_KEY]: SNAPSHOT_VERSION,
    servers: snapshot.servers,
    ...(Object.keys(surfaces).length > 0 ? { surfaces } : {}),
  });
  return escapeHiddenJson(text) + "\n";
}

/** A member name as renderSnapshot writes it. */
export function keyText(name: string): string {
  return escapeHiddenJson(JSON.stringify(name));
}

/**
 * Writes the sidecar atomically (like the lock), unless the file already
 * holds exactly this text.
 *
 * @returns whether the file was written.
 * @throws ContractpinError LOCK_WRITE_FAILED naming the sidecar.
 */
export async function writeSnapshot(path: string, snapshot: Snapshot): Promise<boolean> {
  const text = renderSnapshot(snapshot);
  try {
    if (Buffer.from(readSidecar(path)).toString("utf8") === text) return false;
  } catch {
    // No file (or an unreadable one): write it.
  }
  await writeFileAtomic(path, text, "the contract snapshots");
  return true;
}

/**
 * The sidecar's bytes: a regular file of at most {@link MAX_LOCK_BYTES} (like
 * the lock), opened without waiting, so that a FIFO or a device in its place
 * is refused at once instead of hanging the command.
 *
 * @throws ContractpinError INPUT_UNREADABLE (see isMissing, whyUnreadable).
 */
export function readSidecar(path: string): Uint8Array {
  return readRegularFile(path, MAX_LOCK_BYTES);
}

/** The read failed because there is no file: no snapshot, silently. */
export function isMissing(err: unknown): boolean {
  const cause = isContractpinError(err) ? err.cause : err;
  return (cause as NodeJS.ErrnoException | undefined)?.code === "ENOENT";
}

/** Why the sidecar cannot be read, in a few words ("it is a FIFO (named pipe), not a regular file"). */
function whyUnreadable(err: unknown): string {
  if (!isContractpinError(err)) throw err;
  return (err as { why?: string }).why ?? err.message;
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

function member<T>(record: Record<string, T>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/**
 * Brings the sidecar of `lockPath` in line with `lock`, the lock as now
 * written, after a pin: the servers in `pinned` get their contracts as just
 * read (when the lock holds that very pin), the servers in `removed` lose
 * theirs, and entries of other servers are kept only while they match the
 * lock. An unreadable or corrupt sidecar is replaced. Without `create`, a
 * missing sidecar stays missing (remove). Written after the lock: a crash
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
