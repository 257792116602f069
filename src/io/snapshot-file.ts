import { existsSync, lstatSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { contractOf, type Contract } from "../core/contract/contract.js";
import { isPinnedEntry, type Digest } from "../core/contract/digest.js";
import { ContractpinError, isContractpinError } from "../core/errors.js";
import { getMember, isJsonObject, setMember, type JsonObject } from "../core/json/json-value.js";
import { MAX_LOCK_BYTES } from "../core/limits.js";
import { escapeHiddenJson, prettyJson } from "../core/json/pretty-json.js";
import { parseJson } from "../core/json/strict-json.js";
import { writeFileAtomic } from "./atomic-write.js";
import type { SurfaceSnapshots } from "./snapshot-surface.js";
import { readRegularFile } from "./read-input.js";
import { checkoutBases, refuseLinks } from "./write-target.js";

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

/**
 * The sidecar of `lockPath` as a pin command names it to the user: its path
 * and whether the pin just `written` it; undefined when there is no such file
 * (--no-snapshot on a lock without one, or one that could not be written).
 */
export function snapshotFileAfterPin(
  lockPath: string,
  written: boolean,
): { path: string; written: boolean } | undefined {
  const path = snapshotPath(lockPath);
  return written || existsSync(path) ? { path, written } : undefined;
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
 * holds exactly this text. Only a file contractpin wrote is replaced
 * ({@link replaceableSnapshot}).
 *
 * @returns whether the file was written.
 * @throws ContractpinError WRITE_REFUSED for a link or a file that is not a
 *   snapshot file; LOCK_WRITE_FAILED naming the sidecar when the write fails.
 */
export async function writeSnapshot(path: string, snapshot: Snapshot): Promise<boolean> {
  const text = renderSnapshot(snapshot);
  const now = replaceableSnapshot(path);
  if (now !== undefined && Buffer.from(now).toString("utf8") === text) return false;
  await writeFileAtomic(path, text, "the contract snapshots");
  return true;
}

/**
 * Refuses to write the sidecar at `path` unless it is absent or a contract
 * snapshot file (an object with a "contractpin-contracts" member, of any
 * version): never through a symbolic link (src/io/write-target.ts), and never
 * over another file. The file's content is the repository's, and what
 * contractpin writes there is a server's text: a file that does not parse,
 * or a FIFO, is left for the user to look at, never "repaired". A directory
 * passes: no rename replaces it, so writing fails and recordSnapshots warns.
 *
 * @returns the file's bytes, or undefined when there is none.
 * @throws ContractpinError WRITE_REFUSED, one line saying how to proceed.
 */
export function replaceableSnapshot(path: string): Uint8Array | undefined {
  const what = "the contract snapshots";
  refuseLinks(path, checkoutBases(), what);
  let bytes: Uint8Array;
  try {
    bytes = readSidecar(path);
  } catch (err) {
    if (isMissing(err) || isDirectory(path)) return undefined;
    throw notSnapshot(path, `it cannot be read: ${whyUnreadable(err)}`);
  }
  let root: unknown;
  try {
    root = parseJson(bytes);
  } catch (err) {
    if (!isContractpinError(err)) throw err;
    throw notSnapshot(path, "it is not JSON");
  }
  if (!isJsonObject(root) || typeof getMember(root, SNAPSHOT_KEY) !== "string") {
    throw notSnapshot(path, `it has no ${JSON.stringify(SNAPSHOT_KEY)} member`);
  }
  return bytes;
}

function isDirectory(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

function notSnapshot(path: string, why: string): ContractpinError {
  return new ContractpinError(
    "WRITE_REFUSED",
    `${path}: cannot write the contract snapshots: the file there is not a contract snapshot file (${why}), and contractpin replaces only its own; nothing was written; move it aside or delete it, then run the command again`,
  );
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

/** `record[key]` when it is an own member (`__proto__` is an ordinary key). */
export function member<T>(record: Record<string, T>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}
