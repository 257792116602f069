import { codePointLabel, hiddenCodePoints } from "../visible-text.js";
import type { FindingDraft } from "./finding.js";
import type { RuleId } from "./rules.js";

/** The rules that look for instruction-like text, and what each looks for. */
const PATTERNS: [RuleId, RegExp[]][] = [
  [
    "description-override",
    [
      /\b(?:ignore|disregard|forget|override|bypass)\b[^.\n]{0,40}?\b(?:instructions?|prompts?|rules?|guidelines?|directions?|constraints?|context)\b/giu,
      /\bignore\s+(?:all\s+|any\s+)?(?:the\s+)?(?:previous|prior|above|earlier)\b/giu,
      /\bsystem\s+prompt\b/giu,
      /\bnew\s+instructions?\b/giu,
    ],
  ],
  [
    "description-directive",
    [
      /\bbefore\s+(?:using|calling|invoking|running|executing|you\s+(?:use|call|invoke|run))\b/giu,
      /\b(?:always|first|must|should)\s+(?:call|use|invoke|run|read|send|include|pass|fetch)\b/giu,
      /\byou\s+(?:must|should|are\s+required\s+to|need\s+to|have\s+to)\b/giu,
      /\bas\s+an?\s+(?:ai|assistant|language\s+model)\b/giu,
    ],
  ],
  [
    "description-concealment",
    [
      /\b(?:do\s+not|don'?t|never)\s+(?:tell|inform|mention|reveal|show|notify|alert|let)\b[^.\n]{0,30}?\b(?:user|human|them|anyone)\b/giu,
      /\bwithout\s+(?:telling|informing|notifying|asking|alerting)\b/giu,
      /\b(?:keep|hide)\s+(?:this|it|that)\s+(?:secret|hidden|from)\b/giu,
      /\b(?:secretly|covertly)\b/giu,
    ],
  ],
  [
    "description-markup",
    [
      /<\s*\/?\s*(?:important|system|instructions?|secret|admin|critical|hidden|prompt)\b[^>]{0,40}>/giu,
      /\[\/?(?:INST|SYSTEM)\]/giu,
      /<\|[a-z_]+\|>/giu,
    ],
  ],
  [
    "description-url",
    [/\b(?:https?|ftps?|wss?|file):\/\/[^\s<>"'`)\]]*/giu, /\bwww\.[\w-]+\.[\w.-]+/giu],
  ],
  [
    "description-sensitive-path",
    [
      /(?:~|\$HOME|\$\{HOME\}|%USERPROFILE%|\/home\/[^\s/]+|\/Users\/[^\s/]+|\/root|[A-Z]:\\Users\\[^\s\\]+)[\\/][^\s"'`)]*/giu,
      /\.(?:ssh|aws|gnupg|kube|docker|npmrc|netrc|pgpass|git-credentials|bash_history|zsh_history)\b/giu,
      /\bid_(?:rsa|dsa|ecdsa|ed25519)\b/giu,
      /\/etc\/(?:passwd|shadow|sudoers)\b/giu,
      /(?:^|[\s"'`(/])\.env\b/giu,
      /\b(?:credentials|secrets?)\.(?:json|ya?ml|toml)\b/giu,
      /\bmcp\.json\b/giu,
    ],
  ],
  [
    "description-env-variable",
    [
      /\$\{[A-Za-z_]\w*\}|\$[A-Z_][A-Z0-9_]{2,}\b/gu,
      /%[A-Za-z_]\w*%/gu,
      /\b(?:process\.env|os\.environ|os\.getenv|System\.getenv)\b(?:\.\w+|\[[^\]\n]{0,40}\]|\([^)\n]{0,40}\))?/gu,
      /\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|PAT|CREDENTIALS?)\b/gu,
    ],
  ],
];

// Characters a reviewer cannot see, removed before matching so that they do
// not split a phrase; they are reported by their own rule.
const IGNORABLE = /[\p{Cf}\p{Default_Ignorable_Code_Point}]/gu;
// Ordinary whitespace controls, which are not hidden text.
const WHITESPACE_CONTROLS = new Set([0x09, 0x0a, 0x0d]);
const MAX_REPORTED = 5;
const MAX_MATCH_LENGTH = 80;

/**
 * The checks a description (or any other string a model reads) runs: what
 * `after` gained over `before` in hidden characters and instruction-like
 * text. A string with no `before` (an added tool) gains everything it has.
 *
 * @param otherTools the names of the server's other tools, for mentions.
 * @returns drafts at `pointer`; `after` lists what was gained (code points
 *   as `U+XXXX`, or the matched words), at most five.
 */
export function textFindings(
  before: string | undefined,
  after: string,
  pointer: string,
  otherTools: readonly string[] = [],
): FindingDraft[] {
  const drafts: FindingDraft[] = [];
  const hidden = gained(hiddenLabels(before ?? ""), hiddenLabels(after), true);
  if (hidden.length > 0)
    drafts.push({ rule: "description-hidden-characters", pointer, after: hidden });
  const oldText = searchable(before ?? "");
  const newText = searchable(after);
  for (const [rule, patterns] of PATTERNS) {
    const found = gained(matches(oldText, patterns), matches(newText, patterns), false);
    if (found.length > 0) drafts.push({ rule, pointer, after: found });
  }
  const mentions = otherTools.filter((n) => n.length >= 3).map((n) => mentionPattern(n));
  const mentioned = gained(matches(oldText, mentions), matches(newText, mentions), false);
  if (mentioned.length > 0)
    drafts.push({ rule: "description-tool-mention", pointer, after: mentioned });
  return drafts;
}

function hiddenLabels(text: string): string[] {
  return hiddenCodePoints(text, { multiline: true })
    .filter((cp) => !WHITESPACE_CONTROLS.has(cp))
    .map(codePointLabel);
}

/** NFKC (full-width letters read as letters), without the invisible characters. */
function searchable(text: string): string {
  return text.normalize("NFKC").replace(IGNORABLE, "");
}

/** The matches of all patterns, each once: a match inside an earlier one adds nothing. */
function matches(text: string, patterns: readonly RegExp[]): string[] {
  const spans: [start: number, end: number][] = [];
  const found: string[] = [];
  for (const pattern of patterns) {
    for (const m of text.matchAll(pattern)) {
      const start = m.index;
      const end = start + m[0].length;
      if (spans.some(([s, e]) => s <= start && end <= e)) continue;
      spans.push([start, end]);
      const match = m[0].trim().replace(/\s+/gu, " ");
      found.push(match.length > MAX_MATCH_LENGTH ? match.slice(0, MAX_MATCH_LENGTH) + "…" : match);
    }
  }
  return found;
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

/** A tool name as a whole token: not part of a longer identifier. */
function mentionPattern(name: string): RegExp {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/gu, "\\$&");
  return new RegExp(`(?<![\\p{L}\\p{N}_-])${escaped}(?![\\p{L}\\p{N}_-])`, "gu");
}
