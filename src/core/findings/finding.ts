import type { JsonValue } from "../json/json-value.js";
import { RULES, SEVERITIES, type RuleId, type Severity } from "./rules.js";

/**
 * One classified finding: data, rendered elsewhere. Values that came from a
 * server (`tool`, `server` names, `pointer` tokens, string `before`/`after`)
 * are raw: every renderer passes them through visibleText.
 */
export interface Finding {
  /** The catalogue rule (rules.ts). */
  rule: RuleId;
  /** The rule's severity, copied from the catalogue. */
  severity: Severity;
  /** The server's name in the lock, when known. */
  server?: string;
  /** The tool's name; absent for a finding about the whole server. */
  tool?: string;
  /** RFC 6901 JSON Pointer into the tool's contract, e.g. `/inputSchema/required`. */
  pointer?: string;
  /** The old value at `pointer` (or what the rule names); absent when there was none. */
  before?: JsonValue;
  /** The new value at `pointer` (or what the rule names, e.g. the gained URLs); absent when removed. */
  after?: JsonValue;
  /**
   * A text rule over a text that is new (a first pin, an added tool or part):
   * `after` lists what the text contains, not what it gained over an old one.
   * Renderers word it so ("contains", not "gained").
   */
  contains?: true;
}

/** The parts of a finding a rule check decides; the rest comes from context. */
export type FindingDraft = Omit<Finding, "severity" | "server" | "tool">;

/** Completes a draft with its severity from the catalogue and where it was found. */
export function toFinding(draft: FindingDraft, tool?: string, server?: string): Finding {
  const finding: Finding = { rule: draft.rule, severity: RULES[draft.rule].severity };
  if (server !== undefined) finding.server = server;
  if (tool !== undefined) finding.tool = tool;
  if (draft.pointer !== undefined) finding.pointer = draft.pointer;
  if (draft.before !== undefined) finding.before = draft.before;
  if (draft.after !== undefined) finding.after = draft.after;
  if (draft.contains === true) finding.contains = true;
  return finding;
}

/** Orders findings most severe first; equal severities keep their order (the sort is stable). */
export function bySeverity(a: Finding, b: Finding): number {
  return SEVERITIES.indexOf(a.severity) - SEVERITIES.indexOf(b.severity);
}
