import {
  CONTRACT_FIELDS,
  contractOf,
  type Contract,
  type ContractField,
} from "../contract/contract.js";
import {
  digestContract,
  isPinnedEntry,
  mismatchedFields,
  type ToolDigests,
} from "../contract/digest.js";
import { getMember, isJsonObject, type JsonObject, type JsonValue } from "../json/json-value.js";
import type { Lock } from "./lock.js";
import { sourceCredentials, tokenPointers } from "./lock-credentials.js";
import { checkSurfaces, type SurfaceCheckProblem } from "../surface/check-surface.js";

/**
 * `contractpin check`: whether a lock (already validated: every server digest
 * and tool_count follow from its tools) and its contract snapshots agree, and
 * whether either holds a credential. Pure: the files are read by the caller.
 * Problems are data; src/cli/render/check-text.ts words them.
 */

/** The member naming the snapshot format, and the version this reads (as src/io/snapshot-file.ts, which pure code does not import). */
const SNAPSHOT_KEY = "contractpin-contracts";
const SNAPSHOT_VERSION = "1";

/** The contract snapshots as the caller found them. */
export type SnapshotDocument =
  | { state: "absent" }
  /** A file that is not strict JSON: why, without its content. */
  | { state: "corrupt"; reason: string }
  | { state: "parsed"; value: JsonValue };

/** One disagreement or credential. `server` and `tool` are names as found (unsanitised). */
export type CheckProblem =
  /** The snapshots are not JSON, or not a snapshot file. */
  | { kind: "snapshot-corrupt"; reason: string }
  /** A top-level member the format does not have. */
  | { kind: "snapshot-key"; key: string }
  /** Entries for a server the lock does not pin. */
  | { kind: "snapshot-server-unpinned"; server: string }
  /** A server's entry is not an object of tools. */
  | { kind: "snapshot-server-invalid"; server: string }
  /** A pinned server with tools has no entries at all. */
  | { kind: "snapshot-server-missing"; server: string; tools: number }
  /** An entry for a tool the lock does not pin on that server. */
  | { kind: "snapshot-tool-unpinned"; server: string; tool: string }
  /** A pinned tool without an entry. */
  | { kind: "snapshot-tool-missing"; server: string; tool: string }
  /** An entry whose digest is not the lock's tool digest, or whose name is not the tool's. */
  | { kind: "snapshot-tool-stale"; server: string; tool: string }
  /** The entry is the pinned contract, but the lock's digest of one of its fields does not follow from it. */
  | { kind: "lock-field-digest"; server: string; tool: string; field: string }
  /** A server definition in the lock holds a credential: `where` says where, never what. */
  | { kind: "lock-credential"; server: string; where: string }
  /** A string in the snapshots looks like a credential, at `pointer` (RFC 6901) within the entry, or the file when `server` is absent. */
  | { kind: "snapshot-credential"; server?: string; tool?: string; pointer: string }
  /** The `surfaces` entries (SPEC.md 10.9) disagree with a server's pinned surface. */
  | SurfaceCheckProblem;

/** What {@link checkLock} found. */
export interface CheckResult {
  servers: number;
  tools: number;
  /** Whether snapshots were there to compare (a corrupt file counts as there). */
  snapshot: boolean;
  problems: CheckProblem[];
}

/**
 * Checks `lock` against its contract snapshots: every entry's digest (of the
 * entry exactly as stored) is the lock's tool digest and its fields' digests
 * are the lock's; no entry for a server or tool the lock does not pin; no
 * pinned tool without an entry; the same for each part of a pinned surface
 * (src/core/surface/check-surface.ts). No snapshots at all is no problem (they
 * are optional: `--no-snapshot`); the caller says so. Both files are scanned
 * for credentials (src/core/lock/lock-credentials.ts).
 */
export function checkLock(lock: Lock, snapshot: SnapshotDocument): CheckResult {
  const problems: CheckProblem[] = [];
  let tools = 0;
  for (const [server, pinned] of Object.entries(lock.servers)) {
    tools += pinned.tool_count;
    for (const where of sourceCredentials(pinned)) {
      problems.push({ kind: "lock-credential", server, where });
    }
  }
  const result = { servers: Object.keys(lock.servers).length, tools, problems };
  if (snapshot.state === "absent") return { ...result, snapshot: false };
  if (snapshot.state === "corrupt") {
    problems.push({ kind: "snapshot-corrupt", reason: snapshot.reason });
    return { ...result, snapshot: true };
  }
  const root = snapshot.value;
  const servers = isJsonObject(root) ? getMember(root, "servers") : undefined;
  // Credentials anywhere in the file: in the entries by server and tool, elsewhere by pointer.
  let rest = root;
  if (!isJsonObject(root) || getMember(root, SNAPSHOT_KEY) !== SNAPSHOT_VERSION) {
    problems.push({ kind: "snapshot-corrupt", reason: "it is not a contract snapshot file" });
  } else if (!isJsonObject(servers)) {
    problems.push({ kind: "snapshot-corrupt", reason: "its servers member is not an object" });
  } else {
    for (const key of Object.keys(root)) {
      // `surfaces` (SPEC.md 10.9) is scanned for credentials below, with the rest.
      if (key !== SNAPSHOT_KEY && key !== "servers" && key !== "surfaces")
        problems.push({ kind: "snapshot-key", key });
    }
    compareServers(lock, servers, problems);
    const surfaces = getMember(root, "surfaces") ?? {};
    if (isJsonObject(surfaces)) problems.push(...checkSurfaces(lock, surfaces));
    else
      problems.push({ kind: "snapshot-corrupt", reason: "its surfaces member is not an object" });
    rest = { ...root, servers: {} };
  }
  for (const pointer of tokenPointers(rest))
    problems.push({ kind: "snapshot-credential", pointer });
  return { ...result, snapshot: true };
}

function compareServers(lock: Lock, servers: JsonObject, problems: CheckProblem[]): void {
  for (const [server, pinned] of Object.entries(lock.servers)) {
    const entries = getMember(servers, server);
    if (entries === undefined) {
      if (pinned.tool_count > 0) {
        problems.push({ kind: "snapshot-server-missing", server, tools: pinned.tool_count });
      }
      continue;
    }
    if (!isJsonObject(entries)) {
      problems.push({ kind: "snapshot-server-invalid", server });
      scanEntry(server, undefined, entries, problems);
      continue;
    }
    for (const [tool, digests] of Object.entries(pinned.tools)) {
      const entry = getMember(entries, tool);
      if (entry === undefined) problems.push({ kind: "snapshot-tool-missing", server, tool });
      else compareEntry(server, tool, entry, digests, problems);
    }
    for (const tool of Object.keys(entries)) {
      if (!Object.hasOwn(pinned.tools, tool)) {
        problems.push({ kind: "snapshot-tool-unpinned", server, tool });
        scanEntry(server, tool, entries[tool]!, problems);
      }
    }
  }
  for (const server of Object.keys(servers)) {
    if (!Object.hasOwn(lock.servers, server)) {
      problems.push({ kind: "snapshot-server-unpinned", server });
      scanEntry(server, undefined, servers[server]!, problems);
    }
  }
}

function compareEntry(
  server: string,
  tool: string,
  entry: JsonValue,
  pinned: ToolDigests,
  problems: CheckProblem[],
): void {
  if (!isPinnedEntry(entry, "name", tool, pinned.digest)) {
    problems.push({ kind: "snapshot-tool-stale", server, tool });
  } else {
    // The entry is the pinned contract itself (its digest is the lock's), so
    // each field digest the lock records must follow from it.
    for (const field of fieldDigestMismatches(pinned.fields, contractOf(entry))) {
      problems.push({ kind: "lock-field-digest", server, tool, field });
    }
  }
  scanEntry(server, tool, entry, problems);
}

/**
 * The fields whose digest a lock records for a tool but which does not follow
 * from `contract`, the tool's pinned contract (spec 4.2): a digest of another
 * value, or of a field the contract lacks. Pure.
 */
export function fieldDigestMismatches(
  recorded: ToolDigests["fields"],
  contract: Contract,
): ContractField[] {
  return mismatchedFields(recorded, CONTRACT_FIELDS, () => digestContract(contract).fields);
}

function scanEntry(
  server: string,
  tool: string | undefined,
  entry: JsonValue,
  problems: CheckProblem[],
): void {
  for (const pointer of tokenPointers(entry)) {
    problems.push(
      tool === undefined
        ? { kind: "snapshot-credential", server, pointer }
        : { kind: "snapshot-credential", server, tool, pointer },
    );
  }
}
