import { getMember, isJsonObject, type JsonValue } from "../json/json-value.js";
import type { FindingDraft } from "./finding.js";
import type { RuleId } from "./rules.js";

// Each hint's MCP default (what a removed hint means), and the value that is a risk when gained.
const HINTS: [key: string, fallback: boolean, risky: boolean, rule: RuleId][] = [
  ["readOnlyHint", false, false, "annotation-readonly-removed"],
  ["destructiveHint", true, true, "annotation-destructive-added"],
  ["idempotentHint", false, false, "annotation-idempotent-removed"],
  ["openWorldHint", true, true, "annotation-openworld-added"],
];

/**
 * The behaviour hints that moved toward risk: readOnlyHint true to false,
 * destructiveHint false to true, idempotentHint true to false, openWorldHint
 * false to true. A removed hint, or one that is not a boolean, counts as its
 * MCP default; absent annotations count as all defaults.
 */
export function hintFindings(
  before: JsonValue | undefined,
  after: JsonValue | undefined,
): FindingDraft[] {
  const drafts: FindingDraft[] = [];
  for (const [key, fallback, risky, rule] of HINTS) {
    const old = hint(before, key);
    const now = hint(after, key);
    if ((old ?? fallback) !== risky && (now ?? fallback) === risky) {
      // The values as served, so a reader sees a non-boolean for what it is.
      const d: FindingDraft = { rule, pointer: `/annotations/${key}` };
      const rawOld = raw(before, key);
      const rawNew = raw(after, key);
      if (rawOld !== undefined) d.before = rawOld;
      if (rawNew !== undefined) d.after = rawNew;
      drafts.push(d);
    }
  }
  return drafts;
}

/** A hint's value when it is a boolean; absent (its default) otherwise. */
export function hint(annotations: JsonValue | undefined, key: string): boolean | undefined {
  const value = raw(annotations, key);
  return typeof value === "boolean" ? value : undefined;
}

/** A hint's value as served. */
export function raw(annotations: JsonValue | undefined, key: string): JsonValue | undefined {
  return isJsonObject(annotations) ? getMember(annotations, key) : undefined;
}
