import {
  compareServer,
  type ServerFinding,
  compareSurface,
  withSurface,
} from "../core/contract/compare.js";
import { surfaceDiffSides, type SurfaceSide } from "./surface-sides.js";
import type { SurfaceDigests } from "../core/surface/surface.js";
import type { Contract } from "../core/contract/contract.js";
import { serverDigest, type ServerDigests } from "../core/contract/digest.js";
import { ContractpinError } from "../core/errors.js";
import type { Finding } from "../core/findings/finding.js";
import { sourceFindings } from "../core/findings/server-source.js";
import { namedParts } from "../core/findings/name-skeleton.js";
import { runnerPackage } from "../core/source/package-runner.js";
import { artifactFindings, artifactSubject, type Artifact } from "../core/source/artifact.js";
import { visibleText } from "../core/visible-text.js";
import {
  DUMP_SERVER,
  dumpServerName,
  sideContracts,
  type DiffSide,
  type SideServer,
} from "../io/diff-side.js";
import type { WantedEntry } from "../io/snapshot-entries.js";
import { fieldDigestWarning } from "./explain.js";
import { explainServer, type ItemSides, type ServerExplained } from "./explain-server.js";

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
 * snapshots, one per tool whose entry is missing or stale. A drifted tool's
 * changed fields are computed from its two contracts, never taken from the
 * locks' field digests, which a hand-edited lock controls.
 *
 * @throws ContractpinError USAGE when `selected` names a server neither side has,
 *   or a dump cannot be paired.
 */
export async function diffSides(
  old: DiffSide,
  next: DiffSide,
  selected: readonly string[],
  warn: (message: string) => void,
): Promise<DiffResult> {
  const names = pairNames(old, next, selected);
  const findings: ServerFinding[] = [];
  const sources = new Map<string, Finding[]>();
  for (const name of names) {
    const o = old.servers.get(name);
    const n = next.servers.get(name);
    let finding = compareServer(name, o?.digests ?? EMPTY, n?.digests ?? EMPTY);
    // SPEC.md 10.6: the surfaces too, when either side pins one (the other as pinning none).
    const os = o?.digests.surface;
    const ns = n?.digests.surface;
    if (o !== undefined && n !== undefined && (os !== undefined || ns !== undefined)) {
      finding = withSurface(finding, compareSurface(os ?? NO_SURFACE, ns ?? NO_SURFACE));
    }
    if (n === undefined) delete finding.liveDigest;
    const changes =
      o?.pinned !== undefined && n?.pinned !== undefined
        ? [
            ...sourceFindings(name, o.pinned, n.pinned, runnerPackage),
            ...recordedAnew(name, o.pinned, n.pinned),
          ]
        : [];
    if (changes.length > 0) finding.status = "drift";
    // Never SAME over two different server digests: a part pinned on one side
    // only (resources, pinned with --resources) moves the digest and nothing else.
    if (o !== undefined && n !== undefined && o.digests.digest !== n.digests.digest) {
      if (finding.status === "ok") finding.status = "drift";
      if ((os?.resources === undefined) !== (ns?.resources === undefined)) {
        warn(
          `server ${visibleText(JSON.stringify(name))}: resources are pinned on one side only (--resources), so its server digests differ`,
        );
      }
    }
    sources.set(name, changes);
    findings.push(finding);
  }
  // The contracts of every tool that moved, from each side at once.
  const wantedOld: WantedEntry[] = [];
  const wantedNew: WantedEntry[] = [];
  for (const f of findings) {
    for (const t of f.tools) {
      if (t.status === "drifted" || t.status === "removed")
        wantedOld.push({ server: f.name, tool: t.name, pinned: t.pinned! });
      if (t.status === "drifted" || t.status === "added")
        wantedNew.push({ server: f.name, tool: t.name, pinned: t.live! });
    }
  }
  const before = await known(old, wantedOld, warn);
  const after = await known(next, wantedNew, warn);
  const parts = await surfaceDiffSides(findings, sideOf(old), sideOf(next), warn);
  const explained = new Map<string, ServerExplained>();
  for (const finding of findings) {
    const b: Contract[] = [];
    const a: Contract[] = [];
    for (const tool of finding.tools) {
      const key = entryKey(finding.name, tool.name);
      const was = before.get(key);
      const now = after.get(key);
      // A drifted tool is explained only with both contracts; else its changed
      // fields are unknown (the locks' field digests are advisory: unconfirmed).
      if (tool.status === "drifted" && (was === undefined || now === undefined)) continue;
      if (was !== undefined) b.push(was);
      if (now !== undefined) a.push(now);
    }
    const sides: ItemSides = {
      toolsBefore: b,
      toolsAfter: a,
      pinnedNames: Object.keys(old.servers.get(finding.name)?.digests.tools ?? {}),
      otherParts: namedParts([], next.servers.get(finding.name)?.surfaceContracts),
      parts: parts.get(finding.name),
    };
    explained.set(finding.name, explainServer(finding, sides, sources.get(finding.name)!));
  }
  return { findings, explained };
}

/** A diff side as the surface explanation reads it. */
function sideOf(side: DiffSide): SurfaceSide {
  return {
    path: side.path,
    kind: side.kind,
    ...(side.snapshots === undefined ? {} : { snapshots: side.snapshots }),
    contractsOf: (server) => side.servers.get(server)?.surfaceContracts,
  };
}

/**
 * The contracts found on `side` for `wanted`, by server and tool; one warning
 * for each that is missing, and one for each whose lock field digests do not
 * follow from it.
 */
async function known(
  side: DiffSide,
  wanted: readonly WantedEntry[],
  warn: (message: string) => void,
): Promise<Map<string, Contract>> {
  const found = new Map<string, Contract>();
  if (wanted.length === 0) return found;
  const read = await sideContracts(side, wanted);
  if (read.warning !== undefined) warn(read.warning);
  read.entries.forEach((entry, i) => {
    const w = wanted[i]!;
    if (entry.contract !== undefined) {
      found.set(entryKey(w.server, w.tool), entry.contract);
      const tools = side.servers.get(w.server)?.digests.tools;
      if (side.kind === "lock" && tools !== undefined && Object.hasOwn(tools, w.tool)) {
        const why = fieldDigestWarning(side.path, w, tools[w.tool]!, entry.contract);
        if (why !== undefined) warn(why);
      }
    } else if (read.warning === undefined && entry.warning !== undefined) warn(entry.warning);
  });
  return found;
}

function entryKey(server: string, tool: string): string {
  return JSON.stringify([server, tool]);
}

const EMPTY: ServerDigests = { tool_count: 0, digest: serverDigest({}), tools: {} };
const NO_SURFACE: SurfaceDigests = { instructions: null, prompts: null, resource_templates: null };

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

/**
 * Between two locks, the same package and version recorded with other
 * contents (SPEC.md 11.3): the lock that accepts a re-pushed tag or a
 * replaced file says so, as `artifact-changed`. A new version's artifact
 * (an upgrade) is not a finding.
 */
function recordedAnew(
  name: string,
  before: { artifact?: Artifact },
  after: { artifact?: Artifact },
): Finding[] {
  const [a, b] = [before.artifact, after.artifact];
  if (a === undefined || b === undefined || a.kind !== b.kind) return [];
  const [sa, sb] = [artifactSubject(a), artifactSubject(b)];
  if (sa.name !== sb.name || sa.version !== sb.version) return [];
  return artifactFindings(name, a, b);
}
