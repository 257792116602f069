import type { Contract } from "../contract/contract.js";
import type { JsonValue } from "../json/json-value.js";
import { hintFindings } from "./annotations.js";
import { claimFindings } from "./hint-claims.js";
import { sameJson } from "./diff-json.js";
import { toFinding, type Finding, type FindingDraft } from "./finding.js";
import { inputSchemaFindings } from "./input-schema.js";
import { lookAlikes, nameSkeleton as skeleton, type NamedPart } from "./name-skeleton.js";
import { renames } from "./renames.js";
import {
  otherTools,
  serverTools,
  stringFindings,
  textFindings,
  type OtherTools,
} from "./text-checks.js";

/** Options of {@link classifyTool}. */
export interface ClassifyOptions {
  /** The server's name, copied into each finding (default: none). */
  server?: string;
  /** The names of the server's other live tools: for mentions and look-alike names (default none). */
  otherTools?: readonly string[];
}

/**
 * Classifies what changed between a tool's pinned contract and its live one
 * (spec 2 contract objects). Pure. An absent `before` is an added tool: the
 * `tool-added` finding, the text checks over everything it says, and a check
 * of its name against the other tools. An absent `after` is `tool-removed`.
 * Otherwise each field that differs gives its specific findings, or its
 * catch-all (`description-changed`, `input-schema-changed`,
 * `annotation-changed`) when none applies. Equal contracts give none.
 */
export function classifyTool(
  before: Contract | undefined,
  after: Contract | undefined,
  options: ClassifyOptions = {},
): Finding[] {
  const names = options.otherTools ?? [];
  const self = after?.name ?? before?.name;
  const twins = (name: string) => {
    const key = skeleton(name);
    return names.filter((n) => n !== name && skeleton(n) === key);
  };
  return classify(before, after, otherTools(names, self), twins, options.server);
}

/** Options of {@link classifyServer}. */
export interface ServerClassifyOptions {
  /** The server's name, copied into each finding (default: none). */
  server?: string;
  /**
   * Every tool name in the lock, when `pinned` holds only some of them (no
   * snapshot, or only the tools whose digests differ): such a tool is not
   * added, and is removed only when it is not live (default: the names of
   * `pinned`).
   */
  pinnedNames?: readonly string[];
  /**
   * Every live tool name, when `live` holds only some of them: for removals,
   * mentions and look-alike names (default: the names of `live`). Passing
   * only the tools whose digests differ, with both name lists, keeps a large
   * server fast.
   */
  liveNames?: readonly string[];
  /**
   * The server's other named parts (its prompts and resource templates,
   * namedParts), which a tool's name is compared with for look-alikes as it
   * is with the other tools' (default none).
   */
  otherParts?: readonly NamedPart[];
}

/**
 * Classifies a whole server: pinned contracts against live ones, by name.
 * Adds `tool-added` and `tool-removed` (an added tool whose name reads like
 * another tool's, prompt's or template's: `tool-name-confusable`), and reports a removed tool whose
 * contract reappears under a new name (every other field equal, the old name
 * in the description replaced by the new one) as `tool-renamed` on the new
 * name instead. Findings are grouped by tool, tools sorted by name. Linear
 * in the number of tools, apart from the changed ones' own size.
 */
export function classifyServer(
  pinned: readonly Contract[],
  live: readonly Contract[],
  options: ServerClassifyOptions = {},
): Finding[] {
  const { server } = options;
  const pinnedByName = new Map(pinned.map((c) => [c.name, c]));
  const liveByName = new Map(live.map((c) => [c.name, c]));
  const known = new Set([...pinnedByName.keys(), ...(options.pinnedNames ?? [])]);
  const liveNames = options.liveNames ?? [...liveByName.keys()];
  const liveSet = new Set(liveNames);
  const isLive = (name: string) => liveSet.has(name);
  const names = [...new Set([...known, ...liveByName.keys()])].sort();
  const renamedFrom = renames(names, known, pinnedByName, liveByName, isLive);
  const renamed = new Set([...renamedFrom.values()].map((c) => c.name));
  const alike = lookAlikes([
    ...liveNames.map((name): NamedPart => ({ kind: "tools", name })),
    ...(options.otherParts ?? []),
  ]);
  const twins = (name: string) => alike(name).map((p) => p.name);
  const toolsBut = serverTools(liveNames);
  const findings: Finding[] = [];
  for (const name of names) {
    if (renamed.has(name)) continue;
    const old = pinnedByName.get(name);
    const now = liveByName.get(name);
    const from = renamedFrom.get(name);
    if (from !== undefined) {
      const pair = { pointer: "/name", before: from.name, after: name };
      findings.push(toFinding({ rule: "tool-renamed", ...pair }, name, server));
      findings.push(...classify(from, now, toolsBut(name), twins, server));
    } else if (!known.has(name)) {
      findings.push(...classify(undefined, now, toolsBut(name), twins, server));
    } else if (!isLive(name) && !liveByName.has(name)) {
      findings.push(toFinding({ rule: "tool-removed" }, name, server));
    } else if (old !== undefined && now !== undefined) {
      findings.push(...classify(old, now, toolsBut(name), twins, server));
    }
    // Else still live with one side not given (no snapshot, or unchanged): nothing to say.
  }
  return findings;
}

/** A tool name reduced to what a reader tells apart (name-skeleton.ts). */
export { nameSkeleton } from "./name-skeleton.js";

function classify(
  before: Contract | undefined,
  after: Contract | undefined,
  others: OtherTools,
  twins: (name: string) => string[],
  server: string | undefined,
): Finding[] {
  const drafts: FindingDraft[] = [];
  if (after === undefined) {
    if (before !== undefined) drafts.push({ rule: "tool-removed" });
  } else if (before === undefined) {
    drafts.push({ rule: "tool-added" });
    drafts.push(...textFindings(undefined, text(after.description), "/description", others));
    for (const field of ["inputSchema", "outputSchema", "annotations"] as const) {
      drafts.push(...stringFindings(undefined, after[field], `/${field}`, others));
    }
    drafts.push(...claimFindings(undefined, after));
    const twin = twins(after.name)[0];
    if (twin !== undefined) {
      drafts.push({
        rule: "tool-name-confusable",
        pointer: "/name",
        before: twin,
        after: after.name,
      });
    }
  } else {
    drafts.push(...changedFindings(before, after, others));
  }
  const tool = after?.name ?? before?.name;
  return drafts.map((d) => toFinding(d, tool, server));
}

function changedFindings(before: Contract, after: Contract, others: OtherTools): FindingDraft[] {
  const drafts: FindingDraft[] = [];
  // Each field's specific findings, or its catch-all when there are none.
  const field = (found: FindingDraft[], fallback: FindingDraft) =>
    drafts.push(...(found.length > 0 ? found : [fallback]));
  if (!sameJson(before.description, after.description)) {
    const { description: old } = before;
    field(textFindings(text(old), text(after.description), "/description", others), {
      rule: "description-changed",
      pointer: "/description",
    });
  }
  if (!sameJson(before.inputSchema, after.inputSchema)) {
    field(
      [
        ...inputSchemaFindings(before.inputSchema, after.inputSchema),
        ...stringFindings(before.inputSchema, after.inputSchema, "/inputSchema", others),
      ],
      { rule: "input-schema-changed", pointer: "/inputSchema" },
    );
  }
  if (!optionalSame(before.outputSchema, after.outputSchema)) {
    drafts.push({ rule: "output-schema-changed", pointer: "/outputSchema" });
    drafts.push(
      ...stringFindings(before.outputSchema, after.outputSchema, "/outputSchema", others),
    );
  }
  if (!optionalSame(before.annotations, after.annotations)) {
    field(
      [
        ...hintFindings(before.annotations, after.annotations),
        ...claimFindings(before.annotations, after),
        ...stringFindings(before.annotations, after.annotations, "/annotations", others),
      ],
      { rule: "annotation-changed", pointer: "/annotations" },
    );
  }
  return drafts;
}

function optionalSame(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  return a === undefined || b === undefined ? a === b : sameJson(a, b);
}

function text(description: JsonValue): string {
  return typeof description === "string" ? description : "";
}
