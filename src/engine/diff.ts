import { compareServer, type ServerFinding } from "../core/compare.js";
import type { Contract } from "../core/contract.js";
import { serverDigest, type Digest, type ServerDigests } from "../core/digest.js";
import { ContractpinError } from "../core/errors.js";
import { sourceFindings } from "../core/findings/server-source.js";
import { visibleText } from "../core/visible-text.js";
import {
  DUMP_SERVER,
  dumpServerName,
  sideContract,
  type DiffSide,
  type SideServer,
} from "../io/diff-side.js";
import { explainTools, type ServerExplained } from "./explain.js";

/** What `contractpin diff` found: spec 6 findings per server, and their explanation. */
export interface DiffResult {
  findings: ServerFinding[];
  explained: Map<string, ServerExplained>;
}

/**
 * Compares two sides (locks or dumps) as verify compares a lock with live
 * servers: OLD plays the lock, NEW the live servers. Servers pair by name; a
 * dump is one server, paired with the lock's only server or the one
 * `selected` names. A server on one side only is compared with an empty one
 * (all its tools added, or all removed). Between two locks, a change in how a
 * server is reached is a `server-source-changed` finding and makes the
 * server differ even when its tools are equal. Contracts for the report come
 * from the dumps and the locks' snapshots; one warning per side without
 * snapshots, one per tool whose entry is missing or stale.
 *
 * @throws ContractpinError USAGE when `selected` names a server neither side has,
 *   or a dump cannot be paired.
 */
export function diffSides(
  old: DiffSide,
  next: DiffSide,
  selected: readonly string[],
  warn: (message: string) => void,
): DiffResult {
  const names = pairNames(old, next, selected);
  const findings: ServerFinding[] = [];
  const explained = new Map<string, ServerExplained>();
  const sideWarned = new Set<DiffSide>();
  for (const name of names) {
    const o = old.servers.get(name);
    const n = next.servers.get(name);
    const finding = compareServer(name, o?.digests ?? EMPTY, n?.digests ?? EMPTY);
    if (n === undefined) delete finding.liveDigest;
    const sourceChanges =
      o?.pinned !== undefined && n?.pinned !== undefined
        ? sourceFindings(name, o.pinned, n.pinned)
        : [];
    if (sourceChanges.length > 0) finding.status = "drift";
    findings.push(finding);

    const contractOf = (side: DiffSide, tool: string, digest: Digest | undefined) => {
      if (digest === undefined) return undefined;
      const found = sideContract(side, name, tool, digest);
      if (found.contract !== undefined) return found.contract;
      if (side.kind === "lock" && side.snapshots?.snapshot === undefined) {
        if (!sideWarned.has(side)) warn(noSnapshots(side));
        sideWarned.add(side);
      } else if (found.warning !== undefined) warn(found.warning);
      return undefined;
    };
    const before: Contract[] = [];
    const after: Contract[] = [];
    for (const tool of finding.tools) {
      if (tool.status === "unchanged") continue;
      const b = tool.status === "added" ? undefined : contractOf(old, tool.name, tool.pinned);
      const a = tool.status === "removed" ? undefined : contractOf(next, tool.name, tool.live);
      // A drifted tool is explained only with both contracts; else by its changed fields.
      if (tool.status === "drifted" && (a === undefined || b === undefined)) continue;
      if (b !== undefined) before.push(b);
      if (a !== undefined) after.push(a);
    }
    const server = explainTools(finding, before, after, Object.keys(o?.digests.tools ?? {}));
    server.findings.push(...sourceChanges);
    explained.set(name, server);
  }
  return { findings, explained };
}

const EMPTY: ServerDigests = { tool_count: 0, digest: serverDigest({}), tools: {} };

function noSnapshots(side: DiffSide): string {
  const where = side.snapshots?.path;
  if (side.snapshots?.warning !== undefined) return side.snapshots.warning;
  return where === undefined
    ? `${side.path}: a lock read from standard input has no contract snapshots beside it; showing the changed fields only (name them with --old-contracts or --new-contracts)`
    : `${side.path}: no contract snapshots at ${where}; showing the changed fields only (name them with --old-contracts or --new-contracts)`;
}

/**
 * The server names to compare, each side's dump renamed to its pair's name.
 */
function pairNames(old: DiffSide, next: DiffSide, selected: readonly string[]): string[] {
  const unique = [...new Set(selected)];
  if (old.kind === "lock" && next.kind === "lock") {
    for (const name of unique) {
      if (!old.servers.has(name) && !next.servers.has(name)) {
        throw new ContractpinError(
          "USAGE",
          `no server ${visibleText(JSON.stringify(name))} in ${old.path} or ${next.path}`,
        );
      }
    }
    if (unique.length > 0) return unique.sort();
    return [...new Set([...old.servers.keys(), ...next.servers.keys()])].sort();
  }
  if (unique.length > 1) {
    throw new ContractpinError(
      "USAGE",
      "a dump holds one server: name at most one with --server when a side is a dump",
    );
  }
  const lock = old.kind === "lock" ? old : next.kind === "lock" ? next : undefined;
  let name: string;
  if (unique.length === 1) name = unique[0]!;
  else if (lock === undefined) name = dumpServerName(next.path);
  else if (lock.servers.size === 1) name = [...lock.servers.keys()][0]!;
  else {
    throw new ContractpinError(
      "USAGE",
      `${lock.path} pins ${lock.servers.size} servers; name the one the dump is compared with: --server NAME`,
    );
  }
  if (lock !== undefined && !lock.servers.has(name)) {
    throw new ContractpinError(
      "USAGE",
      `no server ${visibleText(JSON.stringify(name))} in ${lock.path}`,
    );
  }
  for (const side of [old, next]) {
    if (side.kind === "dump") {
      const server = side.servers.get(DUMP_SERVER) as SideServer;
      side.servers = new Map([[name, server]]);
    }
  }
  return [name];
}
