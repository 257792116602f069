import {
  changedFields,
  type ServerFinding,
  type SurfaceExplained,
} from "../core/contract/compare.js";
import type { Contract, ContractField } from "../core/contract/contract.js";
import { digestContract, type Digest, type ToolDigests } from "../core/contract/digest.js";
import { classifyServer } from "../core/findings/classify.js";
import { sidePinFindings, unreachableFinding } from "../core/findings/status-findings.js";
import { bySeverity, type Finding } from "../core/findings/finding.js";
import { namedParts, type NamedPart } from "../core/findings/name-skeleton.js";
import type { PinnedServer } from "../core/lock/lock.js";
import { fieldDigestMismatches } from "../core/lock/lock-check.js";
import { readSnapshotEntries, type WantedEntry } from "../io/snapshot-entries.js";
import { snapshotPath } from "../io/snapshot-file.js";
import { explainSurfaces } from "./explain-surface.js";
import type { VerifiedServer } from "./verify.js";

/** What is known about one tool that is not unchanged: its two contracts (when known) and its findings. */
export interface ToolExplained {
  /** The pinned contract, from the snapshots (absent when there is no usable entry, or the tool was added). */
  before?: Contract;
  /** The live contract (absent for a removed tool). */
  after?: Contract;
  /**
   * For a drifted tool whose two contracts are known: the fields that differ
   * between them. Computed from the contracts, never from the lock's field
   * digests (advisory, spec 4.2: a hand-edited lock can name any field).
   * Absent when either contract is unknown: then nothing confirms which
   * fields changed.
   */
  fields?: ContractField[];
  /** Classified findings, most severe first. */
  findings: Finding[];
  /** For an added tool that is a likely rename: the removed tool's name. */
  renamedFrom?: string;
  /** For a removed tool that was likely renamed: the new name. */
  renamedTo?: string;
}

/** A server's explanation: per tool that is not unchanged, and findings about the server itself. */
export interface ServerExplained {
  tools: Map<string, ToolExplained>;
  /** `server-unreachable`, for a server that could not be read. */
  findings: Finding[];
  /** The surface parts that moved, by surfaceKey: their pinned and live contracts where known. */
  surface?: Map<string, SurfaceExplained>;
}

/**
 * Explains each verified server's drift: classifies its changed tools, with
 * the pinned contracts from the snapshots beside the lock. The snapshots are
 * read only when some tool drifted or was removed (a clean verify never reads
 * them), each entry used only when its digest is the lock's tool digest (a
 * missing, stale or edited one gives one warning, and that tool's changed
 * fields are unknown: the lock's field digests alone confirm nothing). Never
 * changes a verdict.
 */
export async function explainDrift(
  lockFile: string,
  servers: Readonly<Record<string, PinnedServer>>,
  verified: readonly VerifiedServer[],
  warn: (message: string) => void,
): Promise<Map<string, ServerExplained>> {
  const wanted: (WantedEntry & { drifted: boolean })[] = [];
  for (const { finding } of verified) {
    for (const tool of finding.tools) {
      if (tool.status !== "drifted" && tool.status !== "removed") continue;
      const entry = { server: finding.name, tool: tool.name, pinned: tool.pinned as Digest };
      wanted.push({ ...entry, drifted: tool.status === "drifted" });
    }
  }
  const before = new Map<string, Contract[]>();
  if (wanted.length > 0) {
    const path = snapshotPath(lockFile);
    const read = await readSnapshotEntries(path, wanted);
    if (read.warning !== undefined) warn(read.warning);
    else if (!read.file) {
      warn(
        `${path}: no contract snapshots (pinned with --no-snapshot, or before they existed); the changed fields are unknown; 'contractpin update' writes them`,
      );
    }
    read.entries.forEach((entry, i) => {
      const w = wanted[i]!;
      if (entry.contract !== undefined) {
        const pinned = servers[w.server]!.tools;
        if (Object.hasOwn(pinned, w.tool)) {
          const why = fieldDigestWarning(lockFile, w, pinned[w.tool]!, entry.contract);
          if (why !== undefined) warn(why);
        }
        const list = before.get(w.server) ?? [];
        list.push(entry.contract);
        before.set(w.server, list);
      } else if (w.drifted && entry.warning !== undefined) warn(entry.warning);
    });
  }
  const explained = new Map<string, ServerExplained>();
  for (const { finding, changed, surfaceContracts, serverFindings } of verified) {
    // An artifact that changed or could not be checked is why the server was not read: its findings say so.
    const own = serverFindings ?? [];
    const server =
      finding.status === "unreachable"
        ? {
            tools: new Map(),
            findings: own.length > 0 ? [...own] : [unreachableFinding(finding.name, finding.error)],
          }
        : explainTools(
            finding,
            before.get(finding.name) ?? [],
            changed,
            Object.keys(servers[finding.name]!.tools),
            namedParts([], surfaceContracts),
          );
    if (finding.status !== "unreachable") server.findings.push(...own);
    explained.set(finding.name, server);
  }
  for (const [name, { parts, findings }] of await explainSurfaces(lockFile, verified, warn)) {
    const server = explained.get(name)!;
    server.surface = parts;
    server.findings.push(...findings.sort(bySeverity));
  }
  return explained;
}

/**
 * The warning for a lock whose field digests of a tool do not follow from the
 * tool's snapshot entry (matching the lock's tool digest): the lock was
 * edited by hand, and its field digests name fields that did not change (or
 * hide one that did). The report shows the fields computed from the contracts.
 */
export function fieldDigestWarning(
  lockFile: string,
  where: { server: string; tool: string },
  pinned: ToolDigests,
  contract: Contract,
): string | undefined {
  const wrong = fieldDigestMismatches(pinned.fields, contract);
  if (wrong.length === 0) return undefined;
  return `${lockFile}: the field digests of tool ${JSON.stringify(where.tool)} of server ${JSON.stringify(where.server)} do not follow from its snapshot (${wrong.join(", ")}: was the lock edited by hand?); the changed fields shown are computed from the contracts`;
}

/**
 * Explains a compared server's tools that are not unchanged, from the
 * contracts known: `before`, the pinned contracts of drifted and removed
 * tools (a drifted tool without one is not classified, and its changed
 * fields are unknown), and `after`, the new contracts of drifted and added
 * tools. A drifted tool with both gets the fields that differ between them. `pinnedNames` are every tool
 * name on the pinned side; `otherParts` the live prompts' and templates' names
 * (namedParts), for look-alikes across kinds. Classifies them, adds a finding
 * per side pin that moved (SPEC.md 13), pairs likely renames, and sorts
 * each tool's findings most severe first. Pure.
 */
export function explainTools(
  finding: ServerFinding,
  before: readonly Contract[],
  changed: readonly Contract[],
  pinnedNames: readonly string[],
  otherParts: readonly NamedPart[] = [],
): ServerExplained {
  const tools = new Map<string, ToolExplained>();
  const moved = finding.tools.filter((t) => t.status !== "unchanged");
  if (moved.length === 0) return { tools, findings: [] };
  const findings = classifyServer(before, changed, {
    server: finding.name,
    pinnedNames,
    liveNames: finding.tools.filter((t) => t.status !== "removed").map((t) => t.name),
    otherParts,
  });
  const beforeByName = new Map(before.map((c) => [c.name, c]));
  const afterByName = new Map(changed.map((c) => [c.name, c]));
  for (const tool of moved) {
    const explainedTool: ToolExplained = { findings: [] };
    const b = beforeByName.get(tool.name);
    const a = afterByName.get(tool.name);
    if (b !== undefined) explainedTool.before = b;
    if (a !== undefined) explainedTool.after = a;
    if (tool.status === "drifted" && b !== undefined && a !== undefined)
      explainedTool.fields = changedFields(digestContract(b), digestContract(a));
    // A side pin that moved is known from the lock's digests alone, snapshot or not.
    if (tool.sidePins !== undefined)
      explainedTool.findings.push(...sidePinFindings(finding.name, tool.name, tool.sidePins));
    tools.set(tool.name, explainedTool);
  }
  for (const f of findings) {
    const tool = tools.get(f.tool ?? "");
    if (tool === undefined) continue;
    tool.findings.push(f);
    if (f.rule === "tool-renamed" && typeof f.before === "string") {
      tool.renamedFrom = f.before;
      const old = tools.get(f.before);
      if (old !== undefined) {
        old.renamedTo = f.tool!;
        // The new tool's change is shown against the old contract.
        if (old.before !== undefined) tool.before = old.before;
      }
    }
  }
  for (const tool of tools.values()) tool.findings.sort(bySeverity);
  return { tools, findings: [] };
}
