import { getMember, isJsonObject, type JsonValue } from "../json/json-value.js";
import { codePointLabel, hiddenCodePoints } from "../visible-text.js";
import { diffJson } from "./diff-json.js";
import type { FindingDraft } from "./finding.js";
import { plainReading } from "./read-text.js";
import { STEERS } from "./text-patterns.js";
import { sentenceAt, textMatches } from "./text-rules.js";
import { lazy } from "../lazy.js";

// Characters a reviewer cannot see, removed before matching so that they do
// not split a phrase; they are reported by their own rule.
const IGNORABLE = lazy(() => /[\p{Cf}\p{Default_Ignorable_Code_Point}]/gu);
// Ordinary whitespace controls, which are not hidden text.
const WHITESPACE_CONTROLS = new Set([0x09, 0x0a, 0x0d]);
const MAX_REPORTED = 5;
// A tool name that is one token, and the tokens of a text (dots kept: MCP names may hold them).
const TOKEN_NAME = lazy(() => /^[\p{L}\p{N}_.-]+$/u);
const NAME_TOKENS = lazy(() => /[\p{L}\p{N}_.-]+/gu);
const NO_TOOLS: OtherTools = { has: () => false };
// A tool name that is one ordinary lower-case word (`zip`, `echo`), which prose uses too.
const PLAIN_WORD = /^\p{Ll}+$/u;

/**
 * The names of a server's tools, for the mention check: `has(name)` is true
 * for another tool of the server (never for the tool being checked).
 */
export interface OtherTools {
  has(name: string): boolean;
  /** Names that are not single tokens (spaces, punctuation): searched one by one. */
  readonly unusual?: readonly string[];
}

/** The other tools of a server, from their names: identifier-like names are looked up, not searched. */
export function otherTools(names: Iterable<string>, self?: string): OtherTools {
  return serverTools(names)(self);
}

/**
 * For a whole server: indexes its tool names once, and gives each tool's
 * {@link OtherTools} (every name but its own) without copying the index.
 */
export function serverTools(names: Iterable<string>): (self?: string) => OtherTools {
  const set = new Set<string>();
  const unusual: string[] = [];
  for (const name of names) {
    if (name.length < 3) continue;
    if (TOKEN_NAME().test(name)) set.add(name);
    else unusual.push(name);
  }
  return (self) => ({
    has: (name) => name !== self && set.has(name),
    unusual: unusual.length === 0 ? unusual : unusual.filter((n) => n !== self),
  });
}

/**
 * The checks a description (or any other string a model reads) runs: what
 * `after` gained over `before` in hidden characters and instruction-like
 * text. A string with no `before` (an added tool, a first pin) gains
 * everything it has, and its drafts say so (`contains`).
 *
 * @param others the server's other tools, for mentions (default none).
 * @returns drafts at `pointer`; `after` lists what was gained (code points
 *   as `U+XXXX`, or the matched words as served), at most five.
 */
export function textFindings(
  before: string | undefined,
  after: string,
  pointer: string,
  others: OtherTools = NO_TOOLS,
): FindingDraft[] {
  const drafts: FindingDraft[] = [];
  const hidden = gained(hiddenLabels(before ?? ""), hiddenLabels(after), true);
  if (hidden.length > 0)
    drafts.push({ rule: "description-hidden-characters", pointer, after: hidden });
  const now = textMatches(after);
  // The old text is searched only when the new one holds something: most hold nothing.
  const old = now.size === 0 || before === undefined ? new Map() : textMatches(before);
  for (const [rule, found] of now) {
    const gainedNow = gained(old.get(rule) ?? [], found, false);
    if (gainedNow.length > 0) drafts.push({ rule, pointer, after: gainedNow });
  }
  const named = mentions(after, others);
  const mentioned =
    named.length === 0
      ? named
      : gained(before === undefined ? [] : mentions(before, others), named, false);
  if (mentioned.length > 0)
    drafts.push({ rule: "description-tool-mention", pointer, after: mentioned });
  if (before === undefined) for (const d of drafts) d.contains = true;
  return drafts;
}

/**
 * The text checks over every string a model reads inside a schema or the
 * annotations (property descriptions, titles, enum values, member names),
 * at each structural change. `$`-keywords (`$schema`, `$id`, `$ref`) are
 * machinery, not text, and are skipped.
 */
export function stringFindings(
  before: JsonValue | undefined,
  after: JsonValue | undefined,
  pointer: string,
  others: OtherTools = NO_TOOLS,
): FindingDraft[] {
  const drafts: FindingDraft[] = [];
  for (const change of diffJson(before, after, pointer)) {
    if (change.after === undefined || /\/\$[^/]*$/u.test(change.pointer)) continue;
    const newStrings = strings(change.after);
    if (newStrings.length === 0) continue;
    const oldText = change.before === undefined ? undefined : strings(change.before).join("\n");
    drafts.push(...textFindings(oldText, newStrings.join("\n"), change.pointer, others));
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

function hiddenLabels(text: string): string[] {
  return hiddenCodePoints(text, { multiline: true })
    .filter((cp) => !WHITESPACE_CONTROLS.has(cp))
    .map(codePointLabel);
}

/** NFKC (full-width letters read as letters), without the invisible characters. */
export function searchable(text: string): string {
  return text.normalize("NFKC").replace(IGNORABLE(), "");
}

/**
 * What `after` has that `before` has not: by count when `byCount` (one more
 * zero-width space is one more), else by presence, ignoring case; in order,
 * each once, at most five.
 */
function gained(before: string[], after: string[], byCount: boolean): string[] {
  const key = (s: string) => (byCount ? s : s.toLowerCase());
  const budget = new Map<string, number>();
  for (const item of before) budget.set(key(item), (budget.get(key(item)) ?? 0) + 1);
  const result: string[] = [];
  const seen = new Set<string>();
  for (const item of after) {
    const k = key(item);
    const left = budget.get(k) ?? 0;
    if (left > 0) {
      if (byCount) budget.set(k, left - 1);
      continue;
    }
    if (!seen.has(k) && result.length < MAX_REPORTED) result.push(item);
    seen.add(k);
  }
  return result;
}

/**
 * True when a plain word at `index` is used as a name: quoted or in
 * backticks, or followed by "tool" or "(". A tool named `zip` or `echo` is
 * not mentioned by "zip code" or "echoes".
 */
function namedAsTool(text: string, index: number, token: string): boolean {
  const before = text[index - 1] ?? "";
  const rest = text.slice(index + token.length, index + token.length + 8);
  return /["'`\u2018\u201c]/u.test(before) || /^\s*(?:tools?\b|\()/iu.test(rest);
}

/**
 * The other tools `text` names, as whole tokens (not part of a longer
 * identifier), in a sentence that steers the model to them ("call X
 * first", "pass the result to X"): a tool that names its sibling ("use
 * read_text_file instead") is not a finding by itself.
 */
function mentions(served: string, others: OtherTools): string[] {
  const text = plainReading(served).text;
  const found: string[] = [];
  const steered = (index: number) => STEERS.test(sentenceAt(text, index));
  for (const m of text.matchAll(NAME_TOKENS())) {
    const token = m[0].replace(/^[.-]+|[.-]+$/gu, "");
    if (!others.has(token) || !steered(m.index)) continue;
    if (!PLAIN_WORD.test(token) || namedAsTool(text, m.index, m[0])) found.push(token);
  }
  for (const name of others.unusual ?? []) {
    const escaped = name.replace(/[.*+?^${}()|[\]\\]/gu, "\\$&");
    const pattern = new RegExp(`(?<![\\p{L}\\p{N}_-])${escaped}(?![\\p{L}\\p{N}_-])`, "gu");
    for (const m of text.matchAll(pattern)) if (steered(m.index)) found.push(m[0]);
  }
  return found;
}
