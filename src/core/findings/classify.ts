import type { Contract } from "../contract.js";
import { isJsonObject, getMember, type JsonValue } from "../json-value.js";
import { diffJson, sameJson } from "./diff-json.js";
import { toFinding, type Finding, type FindingDraft } from "./finding.js";
import { inputSchemaFindings } from "./input-schema.js";
import type { RuleId } from "./rules.js";
import { textFindings } from "./text-checks.js";

/** Options of {@link classifyTool}. */
export interface ClassifyOptions {
  /** The server's name, copied into each finding (default: none). */
  server?: string;
  /** The names of the server's other live tools: for mentions and look-alike names (default none). */
  otherTools?: readonly string[];
}

// A removed hint counts as its MCP default; a finding when it moves from `risky`'s opposite to it.
const HINTS: [key: string, fallback: boolean, risky: boolean, rule: RuleId][] = [
  ["readOnlyHint", false, false, "annotation-readonly-removed"],
  ["destructiveHint", true, true, "annotation-destructive-added"],
  ["idempotentHint", false, false, "annotation-idempotent-removed"],
  ["openWorldHint", true, true, "annotation-openworld-added"],
];

const INVISIBLE = /[\p{Cf}\p{Default_Ignorable_Code_Point}]/gu;

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
  const others = options.otherTools ?? [];
  const drafts: FindingDraft[] = [];
  if (after === undefined) {
    if (before !== undefined) drafts.push({ rule: "tool-removed" });
  } else if (before === undefined) {
    drafts.push({ rule: "tool-added" });
    drafts.push(...textFindings(undefined, text(after.description), "/description", others));
    for (const field of ["inputSchema", "outputSchema", "annotations"] as const) {
      drafts.push(...stringFindings(undefined, after[field], `/${field}`, others));
    }
    const twin = others.find(
      (other) => other !== after.name && skeleton(other) === skeleton(after.name),
    );
    if (twin !== undefined)
      drafts.push({
        rule: "tool-name-confusable",
        pointer: "/name",
        before: twin,
        after: after.name,
      });
  } else {
    drafts.push(...changedFindings(before, after, others));
  }
  const tool = after?.name ?? before?.name;
  return drafts.map((d) => toFinding(d, tool, options.server));
}

/** Options of {@link classifyServer}. */
export interface ServerClassifyOptions {
  /** The server's name, copied into each finding (default: none). */
  server?: string;
  /**
   * Every tool name in the lock, when some have no pinned contract (no
   * snapshot): such a tool is neither added nor classified when it is still
   * live, and is removed when it is not (default: the names of `pinned`).
   */
  pinnedNames?: readonly string[];
}

/**
 * Classifies a whole server: pinned contracts against live ones, by name.
 * Adds `tool-added` and `tool-removed`, and reports a removed tool whose
 * contract reappears under a new name (every other field equal, the old name
 * in the description replaced by the new one) as `tool-renamed` on the new
 * name instead. Findings are grouped by tool, tools sorted by name.
 */
export function classifyServer(
  pinned: readonly Contract[],
  live: readonly Contract[],
  options: ServerClassifyOptions = {},
): Finding[] {
  const pinnedByName = new Map(pinned.map((c) => [c.name, c]));
  const liveByName = new Map(live.map((c) => [c.name, c]));
  const known = new Set([...pinnedByName.keys(), ...(options.pinnedNames ?? [])]);
  const names = [...new Set([...known, ...liveByName.keys()])].sort();
  const liveNames = [...liveByName.keys()];
  // Pair each removed tool with the first added tool that carries its contract.
  const renamedFrom = new Map<string, Contract>();
  const renamed = new Set<string>();
  for (const name of names) {
    const old = pinnedByName.get(name);
    if (old === undefined || liveByName.has(name)) continue;
    const heir = names.find(
      (n) => !known.has(n) && !renamedFrom.has(n) && sameButName(old, liveByName.get(n)),
    );
    if (heir !== undefined) {
      renamedFrom.set(heir, old);
      renamed.add(name);
    }
  }
  const findings: Finding[] = [];
  for (const name of names) {
    if (renamed.has(name)) continue;
    const now = liveByName.get(name);
    const otherTools = liveNames.filter((n) => n !== name);
    const from = renamedFrom.get(name);
    if (from !== undefined && now !== undefined) {
      const pair = { pointer: "/name", before: from.name, after: name };
      findings.push(toFinding({ rule: "tool-renamed", ...pair }, name, options.server));
      findings.push(...classifyTool(from, now, { server: options.server, otherTools }));
      continue;
    }
    const old = pinnedByName.get(name);
    if (old === undefined && known.has(name)) {
      // Pinned without a snapshot: removed if gone, else the caller reports its fields.
      if (now === undefined)
        findings.push(toFinding({ rule: "tool-removed" }, name, options.server));
      continue;
    }
    findings.push(...classifyTool(old, now, { server: options.server, otherTools }));
  }
  return findings;
}

/** The finding of a server that could not be read; `message` (server text, raw) goes in `after`. */
export function unreachableFinding(server: string, message?: string): Finding {
  return toFinding({ rule: "server-unreachable", after: message }, undefined, server);
}

/**
 * A tool name reduced to what a reader tells apart: NFKC, invisible
 * characters removed, lower case. Two names with one skeleton are confusable.
 */
export function nameSkeleton(name: string): string {
  return skeleton(name);
}

function skeleton(name: string): string {
  return name.normalize("NFKC").replace(INVISIBLE, "").toLowerCase().normalize("NFKC");
}

function changedFindings(
  before: Contract,
  after: Contract,
  others: readonly string[],
): FindingDraft[] {
  const drafts: FindingDraft[] = [];
  if (!sameJson(before.description, after.description)) {
    const found = textFindings(
      text(before.description),
      text(after.description),
      "/description",
      others,
    );
    drafts.push(
      ...(found.length > 0
        ? found
        : [{ rule: "description-changed", pointer: "/description" } as const]),
    );
  }
  if (!sameJson(before.inputSchema, after.inputSchema)) {
    const found = [
      ...inputSchemaFindings(before.inputSchema, after.inputSchema),
      ...stringFindings(before.inputSchema, after.inputSchema, "/inputSchema", others),
    ];
    drafts.push(
      ...(found.length > 0
        ? found
        : [{ rule: "input-schema-changed", pointer: "/inputSchema" } as const]),
    );
  }
  if (!optionalSame(before.outputSchema, after.outputSchema)) {
    drafts.push({ rule: "output-schema-changed", pointer: "/outputSchema" });
    drafts.push(
      ...stringFindings(before.outputSchema, after.outputSchema, "/outputSchema", others),
    );
  }
  if (!optionalSame(before.annotations, after.annotations)) {
    const found = [
      ...hintFindings(before.annotations, after.annotations),
      ...stringFindings(before.annotations, after.annotations, "/annotations", others),
    ];
    drafts.push(
      ...(found.length > 0
        ? found
        : [{ rule: "annotation-changed", pointer: "/annotations" } as const]),
    );
  }
  return drafts;
}

function hintFindings(before: JsonValue | undefined, after: JsonValue | undefined): FindingDraft[] {
  const drafts: FindingDraft[] = [];
  for (const [key, fallback, risky, rule] of HINTS) {
    const old = hint(before, key);
    const now = hint(after, key);
    if ((old ?? fallback) !== risky && (now ?? fallback) === risky) {
      const d: FindingDraft = { rule, pointer: `/annotations/${key}` };
      if (old !== undefined) d.before = old;
      if (now !== undefined) d.after = now;
      drafts.push(d);
    }
  }
  return drafts;
}

/** A hint's boolean value; anything else (absent, not a boolean) is its default. */
function hint(annotations: JsonValue | undefined, key: string): boolean | undefined {
  if (!isJsonObject(annotations)) return undefined;
  const value = getMember(annotations, key);
  return typeof value === "boolean" ? value : undefined;
}

/**
 * The text checks over every string a model reads inside a schema or the
 * annotations (property descriptions, titles, enum values, member names),
 * at each structural change. `$`-keywords (`$schema`, `$id`, `$ref`) are
 * machinery, not text.
 */
function stringFindings(
  before: JsonValue | undefined,
  after: JsonValue | undefined,
  pointer: string,
  others: readonly string[],
): FindingDraft[] {
  const drafts: FindingDraft[] = [];
  for (const change of diffJson(before, after, pointer)) {
    if (change.after === undefined || /\/\$[^/]*$/u.test(change.pointer)) continue;
    const oldText = change.before === undefined ? undefined : strings(change.before).join("\n");
    drafts.push(...textFindings(oldText, strings(change.after).join("\n"), change.pointer, others));
  }
  return drafts;
}

/** The strings of a value, member names included, skipping `$`-keywords. Iterative. */
function strings(value: JsonValue): string[] {
  const found: string[] = [];
  const stack: JsonValue[] = [value];
  while (stack.length > 0) {
    const v = stack.pop()!;
    if (typeof v === "string") found.push(v);
    else if (Array.isArray(v)) for (const item of v) stack.push(item);
    else if (isJsonObject(v)) {
      for (const key of Object.keys(v)) {
        if (key.startsWith("$")) continue;
        found.push(key);
        stack.push(getMember(v, key)!);
      }
    }
  }
  return found;
}

function sameButName(old: Contract, now: Contract | undefined): boolean {
  if (now === undefined) return false;
  const description =
    typeof old.description === "string"
      ? old.description.replaceAll(old.name, now.name)
      : old.description;
  return (
    sameJson(description, now.description) &&
    sameJson(old.inputSchema, now.inputSchema) &&
    optionalSame(old.outputSchema, now.outputSchema) &&
    optionalSame(old.annotations, now.annotations)
  );
}

function optionalSame(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  return a === undefined || b === undefined ? a === b : sameJson(a, b);
}

function text(description: JsonValue): string {
  return typeof description === "string" ? description : "";
}
