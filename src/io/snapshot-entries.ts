// Reading only the snapshot entries a report needs, from the sidecar beside a
// lock; src/io/snapshot-file.ts holds the file's format, its whole-file reader
// and its writer.
import { contractOf } from "../core/contract/contract.js";
import { isPinnedEntry, type Digest } from "../core/contract/digest.js";
import type { JsonObject, JsonValue } from "../core/json/json-value.js";
import { parseJson } from "../core/json/strict-json.js";
import {
  isMissing,
  keyText,
  readSidecar,
  readSnapshot,
  snapshotEntry,
  SNAPSHOT_KEY,
  SNAPSHOT_VERSION,
  type SnapshotEntry,
} from "./snapshot-file.js";

/** An entry a reader needs: the tool of a server, with its digest in the lock. */
export interface WantedEntry {
  server: string;
  tool: string;
  pinned: Digest;
}

/** What {@link readSnapshotEntries} found. */
export interface EntriesRead {
  /** Whether a file is there at all (no file is silently no snapshot). */
  file: boolean;
  /** Why the file as a whole cannot be used (unreadable, corrupt, unknown format). */
  warning?: string;
  /** For each wanted entry, in order: its contract, or why there is none. */
  entries: SnapshotEntry[];
}

/**
 * The snapshot entries `wanted`, from the sidecar at `path`, with
 * {@link snapshotEntry}'s rule: an entry is used only when its digest is the
 * lock's. A sidecar as contractpin writes it is not parsed whole: each wanted
 * entry is found by its key at its indent and only its bytes go through the
 * strict parser, since a few drifted tools of a large server should not cost a
 * parse of every tool's contract. When any wanted entry cannot be found or
 * used that way, or the file is not laid out as written, the whole file is
 * parsed and every entry and warning is exactly {@link readSnapshot}'s and
 * {@link snapshotEntry}'s. So the fast path only ever returns contracts whose
 * digests match the lock: what they are does not depend on how they were found.
 */
export async function readSnapshotEntries(
  path: string,
  wanted: readonly WantedEntry[],
): Promise<EntriesRead> {
  let bytes: Buffer | undefined;
  try {
    bytes = Buffer.from(readSidecar(path));
  } catch (err) {
    if (isMissing(err)) return { file: false, entries: wanted.map(() => ({})) };
  }
  if (bytes !== undefined && wanted.length > 0) {
    const fast = entriesByLayout(bytes, wanted);
    if (fast !== undefined) return { file: true, entries: fast };
  }
  const read = await readSnapshot(path, bytes);
  const entries = wanted.map((w) =>
    read.snapshot === undefined
      ? {}
      : snapshotEntry(read.snapshot, w.server, w.tool, w.pinned, path),
  );
  return { file: true, ...(read.warning === undefined ? {} : { warning: read.warning }), entries };
}

const HEAD = Buffer.from(`{\n  "${SNAPSHOT_KEY}": "${SNAPSHOT_VERSION}",\n  "servers": {\n`);
const TAIL = Buffer.from("\n  }\n}\n");

/**
 * The wanted entries found by the writer's layout (renderSnapshot): a server
 * at four spaces, its tools at six, each entry ending at the first line that
 * is six spaces and `}` (JSON strings hold no raw line feed). Undefined when
 * the file is not framed as written, or any entry is missing or does not
 * match: the caller then parses the whole file.
 */
function entriesByLayout(
  bytes: Buffer,
  wanted: readonly WantedEntry[],
): SnapshotEntry[] | undefined {
  if (!bytes.subarray(0, HEAD.length).equals(HEAD)) return undefined;
  if (!bytes.subarray(bytes.length - TAIL.length).equals(TAIL)) return undefined;
  const sections = new Map<string, Map<string, number> | undefined>();
  const entries: SnapshotEntry[] = [];
  for (const w of wanted) {
    if (!sections.has(w.server)) sections.set(w.server, toolKeys(bytes, w.server));
    const open = sections.get(w.server)?.get(keyText(w.tool));
    if (open === undefined) return undefined;
    const close = bytes.indexOf("\n      }", open);
    if (close === -1) return undefined;
    let entry: JsonValue;
    try {
      entry = parseJson(bytes.subarray(open, close + 8));
    } catch {
      return undefined;
    }
    if (!isPinnedEntry(entry, "name", w.tool, w.pinned)) return undefined;
    entries.push({ contract: contractOf(entry as JsonObject) });
  }
  return entries;
}

/**
 * The tools of `server`'s section, as written: each tool key's JSON text (a
 * line of six spaces, the key, `: {`) to the offset of its entry's `{`. One
 * pass over the section; undefined when the server has no such section.
 */
function toolKeys(bytes: Buffer, server: string): Map<string, number> | undefined {
  const head = Buffer.from(`\n    ${keyText(server)}: {\n`);
  const start = bytes.indexOf(head, HEAD.length - 1);
  if (start === -1) return undefined;
  const end = bytes.indexOf("\n    }", start + head.length - 1);
  if (end === -1) return undefined;
  const keys = new Map<string, number>();
  let at = start + head.length - 1;
  for (;;) {
    at = bytes.indexOf('\n      "', at);
    if (at === -1 || at >= end) return keys;
    const lineEnd = bytes.indexOf(0x0a, at + 1);
    // `      "<tool>": {`: the key ends three bytes before the line does.
    if (lineEnd === -1 || bytes.toString("latin1", lineEnd - 3, lineEnd) !== ": {") return keys;
    keys.set(bytes.toString("utf8", at + 7, lineEnd - 3), lineEnd - 1);
    at = lineEnd;
  }
}
