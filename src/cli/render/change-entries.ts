import { canonicalize } from "../../core/json/canonical-json.js";
import type { Contract } from "../../core/contract/contract.js";
import { getMember, isJsonObject, type JsonValue } from "../../core/json/json-value.js";
import { diffJson, sameJson, type JsonChange } from "../../core/findings/diff-json.js";
import { appendPointer, pointerTokens } from "../../core/json/json-pointer.js";
import type { Finding } from "../../core/findings/finding.js";
import { SEVERITIES } from "../../core/findings/rules.js";
import { sortKeys } from "../../core/json/sort-keys.js";

/** The contract fields a change report compares, in the order it shows them. */
export const REPORTED_FIELDS = [
  "description",
  "inputSchema",
  "outputSchema",
  "annotations",
] as const;

/** The longest value (canonical JSON, in characters) a report shows on one line without cutting it. */
export const VALUE_WIDTH = 80;

/** The most lines one change is split into before the rest is left to --verbose. */
export const SPLIT_CAP = 30;

/**
 * One thing a report says about a changed contract: findings and the changed
 * values they are about (JSON Pointer, before, after), or a changed value no
 * finding is about, or a finding about no value (tool-added, tool-removed).
 */
export interface ChangeEntry {
  /** Most severe first. */
  findings: Finding[];
  /** The changed values, in document order; `more` counts lines left out by {@link SPLIT_CAP}. */
  changes: ShownChange[];
}

/** A changed value as a report shows it. */
export interface ShownChange extends JsonChange {
  /** Lines of this change not shown (the value is too big): --verbose shows it whole. */
  more?: number;
  /** With `more`: the pointer of the value those lines are part of. */
  moreOf?: string;
}

/** Options of {@link changeEntries}. */
export interface EntryOptions {
  /** Values whole: no value is split into its members for its length (default false). */
  verbose?: boolean;
  /**
   * The members compared, in the order shown, and how each is read: by
   * default a tool's (REPORTED_FIELDS, a null schema absent); a prompt's or
   * template's are its kind's fields, read as they are.
   */
  members?: ItemMembers;
}

/** An item a report compares (a contract, a prompt, the instructions as `{instructions}`). */
type Item = Readonly<Record<string, JsonValue>>;

/** The members of an item a report compares, and how a member's value is read. */
export interface ItemMembers {
  fields: readonly string[];
  valueOf: (item: Item, field: string) => JsonValue | undefined;
}

/** A tool's members: REPORTED_FIELDS, a null schema absent (a null description is shown as null). */
export const TOOL_MEMBERS: ItemMembers = {
  fields: REPORTED_FIELDS,
  valueOf: (c, field) =>
    field === "description" ? c["description"] : (getMember(c, field) ?? undefined),
};

/** Any other item's members: `fields`, each as it is (null is a value), absent when missing. */
export function plainMembers(fields: readonly string[]): ItemMembers {
  return { fields, valueOf: (c, field) => getMember(c, field) };
}

/**
 * What changed between two contracts, as entries: each finding with the
 * changes at, inside or around its pointer (findings that share a change are
 * one entry), then each change no finding is about. A value added or removed
 * whole is split into its members, each a change of its own, when a finding
 * points inside it or (unless `verbose`) when it is longer than
 * {@link VALUE_WIDTH}: the part that changed is shown, never a value cut in
 * the middle. Entries are ordered by their most severe finding, then by where
 * their first change is; changes without a finding come last.
 */
export function changeEntries(
  before: Contract | Item | undefined,
  after: Contract | Item | undefined,
  findings: readonly Finding[],
  options: EntryOptions = {},
): ChangeEntry[] {
  const changes: ShownChange[] = [];
  if (before !== undefined && after !== undefined) {
    const pointers = findings.flatMap((f) => (f.pointer === undefined ? [] : [f.pointer]));
    const { fields, valueOf } = options.members ?? TOOL_MEMBERS;
    // A Contract is an interface, which TypeScript does not index by string.
    const [b, a] = [before as Item, after as Item];
    for (const field of fields) {
      for (const change of diffJson(valueOf(b, field), valueOf(a, field), `/${field}`)) {
        changes.push(...split(change, pointers, options.verbose === true));
      }
    }
  }
  // Union-find over findings (0..f-1) and changes (f..f+c-1): a finding is
  // about a change when one pointer is the other or inside it.
  const parent = [...Array(findings.length + changes.length).keys()];
  const root = (i: number): number => {
    while (parent[i] !== i) i = parent[i] = parent[parent[i]!]!;
    return i;
  };
  findings.forEach((f, i) => {
    if (f.pointer === undefined) return;
    const at = pointerTokens(f.pointer);
    changes.forEach((c, j) => {
      const to = pointerTokens(c.pointer);
      if (isPrefix(at, to) || isPrefix(to, at)) parent[root(i)] = root(findings.length + j);
    });
  });
  const byRoot = new Map<number, ChangeEntry>();
  const entryOf = (i: number) => {
    const r = root(i);
    let entry = byRoot.get(r);
    if (entry === undefined) byRoot.set(r, (entry = { findings: [], changes: [] }));
    return entry;
  };
  findings.forEach((f, i) => entryOf(i).findings.push(f));
  changes.forEach((c, j) => entryOf(findings.length + j).changes.push(c));
  const entries = [...byRoot.values()];
  const position = (e: ChangeEntry) =>
    e.changes.length === 0 ? changes.length : changes.indexOf(e.changes[0]!);
  for (const e of entries) {
    e.findings.sort((a, b) => SEVERITIES.indexOf(a.severity) - SEVERITIES.indexOf(b.severity));
  }
  // Stable: equal entries keep the order of their first finding or change.
  return entries.sort((a, b) => entryRank(a) - entryRank(b) || position(a) - position(b));
}

/** An entry's order: the index of its most severe finding's severity (critical first); without findings, last. */
export function entryRank(entry: ChangeEntry): number {
  let rank: number = SEVERITIES.length;
  for (const f of entry.findings) rank = Math.min(rank, SEVERITIES.indexOf(f.severity));
  return rank;
}

/**
 * True when `finding` says all there is to say about `change`: the same
 * pointer and the same values, each short enough to be shown whole (or
 * `verbose`). Its change line is then left out.
 */
export function states(finding: Finding, change: JsonChange, verbose: boolean): boolean {
  return (
    finding.pointer === change.pointer &&
    sameOptional(finding.before, change.before) &&
    sameOptional(finding.after, change.after) &&
    (verbose || (fits(finding.before) && fits(finding.after)))
  );
}

/** True when a value is shown whole on a line: absent, or at most {@link VALUE_WIDTH} characters of canonical JSON. */
export function fits(value: JsonValue | undefined): boolean {
  return value === undefined || canonicalize(value).length <= VALUE_WIDTH;
}

/**
 * A canonical key of an entry, equal for two entries exactly when they hold
 * the same findings (rule, severity, pointer, values) and the same changes
 * (pointer, values, lines left out), whatever tool they are about.
 */
export function entryKey(status: string, entry: ChangeEntry): string {
  return canonicalize({
    status,
    findings: entry.findings.map((f) => withValues({ rule: f.rule, severity: f.severity }, f)),
    changes: entry.changes.map((c) => withValues({ more: c.more ?? 0 }, c)),
  });
}

function withValues(
  base: Record<string, JsonValue>,
  v: { pointer?: string; before?: JsonValue; after?: JsonValue },
): Record<string, JsonValue> {
  const out = { ...base };
  if (v.pointer !== undefined) out["pointer"] = v.pointer;
  if (v.before !== undefined) out["before"] = v.before;
  if (v.after !== undefined) out["after"] = v.after;
  return out;
}

/**
 * A value shown on its own (an added tool's field): whole when it fits on a
 * line or `verbose`, else split into its members as {@link changeEntries}
 * splits an added value (each change's `after`).
 */
export function splitValue(pointer: string, value: JsonValue, verbose: boolean): ShownChange[] {
  return split({ pointer, after: value }, [], verbose);
}

/**
 * A change of a value added or removed whole, as its members' changes, when
 * a finding points inside it or it does not fit on a line: recursively, at
 * most {@link SPLIT_CAP} lines (the last one counting what is left out).
 */
function split(change: JsonChange, pointers: readonly string[], verbose: boolean): ShownChange[] {
  const out: ShownChange[] = [];
  let left = 0;
  const stack: JsonChange[] = [change];
  while (stack.length > 0) {
    const c = stack.pop()!;
    if (out.length >= SPLIT_CAP) {
      left++;
      continue;
    }
    const members = membersOf(c);
    const inside = pointers.some((p) => p.startsWith(`${c.pointer}/`));
    if (members === undefined || (!inside && (verbose || (fits(c.before) && fits(c.after))))) {
      out.push(c);
      continue;
    }
    for (let i = members.length - 1; i >= 0; i--) stack.push(members[i]!);
  }
  if (left > 0)
    out[out.length - 1] = { ...out[out.length - 1]!, more: left, moreOf: change.pointer };
  return out;
}

/** The members of a non-empty object or array (not of scalars only) added or removed whole. */
function membersOf(c: JsonChange): JsonChange[] | undefined {
  const value = c.before === undefined ? c.after : c.after === undefined ? c.before : undefined;
  if (value === undefined) return undefined;
  const side = (at: string, v: JsonValue): JsonChange =>
    c.before === undefined ? { pointer: at, after: v } : { pointer: at, before: v };
  if (isJsonObject(value)) {
    const keys = Object.keys(value);
    sortKeys(keys);
    if (keys.length === 0) return undefined;
    return keys.map((k) => side(appendPointer(c.pointer, k), getMember(value, k)!));
  }
  if (Array.isArray(value) && value.some((v) => v !== null && typeof v === "object")) {
    return value.map((v, i) => side(appendPointer(c.pointer, i), v));
  }
  return undefined;
}

function isPrefix(a: readonly string[], b: readonly string[]): boolean {
  return a.length <= b.length && a.every((t, i) => t === b[i]);
}

function sameOptional(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  return a === undefined || b === undefined ? a === b : sameJson(a, b);
}
