// The one explanation of a compared server, every kind alike: what is known
// about each item that moved (its two contracts where known) and the findings
// the rules give it. Tools are classified together (renames pair across
// them, a side pin that moved is a finding of its own); a surface part by its
// kind's members. Where the contracts come from (the snapshots beside a lock,
// a live read, a dump) is the caller's: verify (explain.ts), diff and the
// guard's graded mode read them and call this. Pure.
import {
  changedFields,
  type ServerFinding,
  surfaceKey,
  type SurfaceExplained,
  type SurfaceFinding,
} from "../core/contract/compare.js";
import type { Contract, ContractField } from "../core/contract/contract.js";
import { digestContract } from "../core/contract/digest.js";
import { classifyServer } from "../core/findings/classify.js";
import { sidePinFindings } from "../core/findings/status-findings.js";
import { bySeverity, type Finding } from "../core/findings/finding.js";
import type { NamedPart } from "../core/findings/name-skeleton.js";
import type { JsonValue } from "../core/json/json-value.js";
import { surfaceFindings } from "../core/surface/findings.js";

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

/** Where the explanation of one server finds the contracts of the items that moved. */
export interface ItemSides {
  /** The pinned contracts known of its drifted and removed tools (a drifted one without one is not classified). */
  toolsBefore: readonly Contract[];
  /** The new contracts of its drifted and added tools. */
  toolsAfter: readonly Contract[];
  /** Every tool name on the pinned side. */
  pinnedNames: readonly string[];
  /** The live prompts' and templates' names (namedParts), for a tool's look-alikes across kinds. */
  otherParts: readonly NamedPart[];
  /** Where its surface parts' contracts are; undefined when none moved. */
  parts?: PartSides | undefined;
}

/**
 * A compared server's explanation, every kind: its tools (explainTools),
 * then its surface parts (explainParts). Its findings: `own` (about the
 * server itself: its launch line, its artifact), then the surface parts',
 * most severe first; a tool's are on the tool. Pure.
 */
export function explainServer(
  finding: ServerFinding,
  sides: ItemSides,
  own: readonly Finding[] = [],
): ServerExplained {
  const server = explainTools(
    finding,
    sides.toolsBefore,
    sides.toolsAfter,
    sides.pinnedNames,
    sides.otherParts,
  );
  server.findings.push(...own);
  if (sides.parts !== undefined) {
    const { parts, findings } = explainParts(finding, sides.parts);
    server.surface = parts;
    server.findings.push(...findings.sort(bySeverity));
  }
  return server;
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

/** Where an explanation finds a moved part's two contracts. */
export interface PartSides {
  /** The pinned contract (not asked for an added part). */
  before: (f: SurfaceFinding) => JsonValue | undefined;
  /** The new contract (not asked for a removed part). */
  after: (f: SurfaceFinding) => JsonValue | undefined;
  /** The look-alikes among the server's live names. */
  alike: (name: string) => NamedPart[];
}

/**
 * A server's moved surface parts, each with the contracts `sides` knows and
 * their findings: the one loop of verify's and diff's explanations.
 */
export function explainParts(
  finding: ServerFinding,
  sides: PartSides,
): { parts: Map<string, SurfaceExplained>; findings: Finding[] } {
  const parts = new Map<string, SurfaceExplained>();
  const findings: Finding[] = [];
  for (const f of finding.surface ?? []) {
    if (f.status === "unchanged") continue;
    const explained: SurfaceExplained = {};
    const before = f.status === "added" ? undefined : sides.before(f);
    const after = f.status === "removed" ? undefined : sides.after(f);
    if (before !== undefined) explained.before = before;
    if (after !== undefined) explained.after = after;
    parts.set(surfaceKey(f), explained);
    findings.push(...surfaceFindings(finding.name, f, explained, sides.alike));
  }
  return { parts, findings };
}
