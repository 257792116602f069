import { DECODE_INSTRUCTION, encodedRuns, rot13 } from "./encoded.js";
import { foldedReadings, plainReading, servedSpan, type Reading } from "./read-text.js";
import type { RuleId } from "./rules.js";
import { DOC_CONTEXT, PATTERNS, SENDS_DATA, SENDS_TO } from "./text-patterns.js";

const MAX_MATCH_LENGTH = 80;
const PAYLOAD: RuleId = "description-encoded-payload";
const ROT13_WORTH =
  /\b(?:ignore|disregard|forget|override|bypass|supersedes?|system|instructions?|prompt|before|always|first|must|should|you|tell|inform|mention|reveal|without|secret|hide|keep|important|user|silently|quietly|secretly|covertly)\b/iu;

/**
 * The instruction-like text rules over one text a model reads, whatever
 * holds it (a tool's description, a schema string, instructions, a prompt,
 * a template): each rule that matches, with what it matched, quoted as
 * served (so a disguised phrase shows its disguise), each once, in order.
 * The text is read as a model reads it (read-text.ts), and what an encoded
 * run decodes to is read too: its matches are quoted decoded, with the
 * encoding named (`ignore all instructions (base64)`). Pure.
 */
export function textMatches(text: string): Map<RuleId, string[]> {
  const found = new Map<RuleId, string[]>();
  const add = (rule: RuleId, quote: string) => {
    const list = found.get(rule);
    if (list === undefined) found.set(rule, [quote]);
    else list.push(quote);
  };
  const plain = plainReading(text);
  const folded = foldedReadings(plain);
  for (const { rule, patterns, phrase } of PATTERNS) {
    const readings = phrase ? [plain, ...folded] : [plain];
    for (const [quote, as] of matchesIn(text, readings, patterns, rule)) add(as, quote);
  }
  for (const [rule, quote] of decodedMatches(text, plain, found)) add(rule, quote);
  return found;
}

/** The served text of each match of `patterns` in any of `readings`, each span once. */
function matchesIn(
  served: string,
  readings: readonly Reading[],
  patterns: readonly RegExp[],
  rule: RuleId,
): [quote: string, rule: RuleId][] {
  const spans: [start: number, end: number][] = [];
  const quotes: [string, RuleId][] = [];
  for (const reading of readings) {
    for (const pattern of patterns) {
      // exec, not matchAll: matchAll copies the expression on every call.
      pattern.lastIndex = 0;
      for (let m = pattern.exec(reading.text); m !== null; m = pattern.exec(reading.text)) {
        if (m[0].length === 0) {
          pattern.lastIndex++;
          continue;
        }
        const [start, end] = servedSpan(reading, m.index, m.index + m[0].length);
        if (spans.some(([s, e]) => s <= start && end <= e)) continue;
        const quote = served.slice(start, end);
        const as = rule === "description-url" ? urlRule(reading.text, m.index, m[0], quote) : rule;
        if (as === undefined) continue;
        spans.push([start, end]);
        quotes.push([clip(quote), as]);
      }
    }
  }
  return quotes;
}

function clip(quote: string): string {
  const q = quote.trim().replace(/\s+/gu, " ");
  return q.length > MAX_MATCH_LENGTH ? q.slice(0, MAX_MATCH_LENGTH) + "…" : q;
}

/**
 * The rule of a URL found: `description-url-disguised` when it is written so
 * as not to read as a link (defanged, references, look-alike letters), or is
 * a bare domain the sentence sends data to; none for a documentation link.
 */
function urlRule(text: string, index: number, url: string, served: string): RuleId | undefined {
  if (served !== url) return "description-url-disguised";
  const bare = !/^(?:[a-z]+:\/\/|www\.)/iu.test(url);
  if (bare && SENDS_TO.test(sentenceAt(text, index))) return "description-url-disguised";
  return documentationLink(text, index, url, served) ? undefined : "description-url";
}

/**
 * A link to documentation: written as a link (not defanged or disguised),
 * with a scheme, no query or placeholder, in a sentence that points to
 * docs and neither sends data nor fetches instructions.
 */
function documentationLink(text: string, index: number, url: string, served: string): boolean {
  if (served !== url || !/^(?:https?:\/\/|www\.)/iu.test(url) || /[?{}$%]/u.test(url)) return false;
  const around = sentenceAt(text, index).replace(url, " ");
  return DOC_CONTEXT.test(around) && !SENDS_DATA.test(around);
}

/** The sentence of `text` around `index` (up to a full stop followed by a space, or a line break). */
export function sentenceAt(text: string, index: number): string {
  const stops = /[.!?](?=\s)|\n/gu;
  let start = 0;
  let end = text.length;
  for (const m of text.matchAll(stops)) {
    if (m.index < index) start = m.index + 1;
    else {
      end = m.index;
      break;
    }
  }
  return text.slice(start, end);
}

/**
 * What encoded runs say: an instruction to decode is a payload finding of
 * its own; a base64 or hex run that decodes to text is one, and the rules
 * run over what it decodes to; the text read as ROT13 is one when it holds
 * a phrase the text does not.
 */
function decodedMatches(
  served: string,
  plain: Reading,
  found: ReadonlyMap<RuleId, string[]>,
): [RuleId, string][] {
  const out: [RuleId, string][] = [];
  for (const [quote] of matchesIn(served, [plain], DECODE_INSTRUCTION, PAYLOAD))
    out.push([PAYLOAD, quote]);
  const phraseRules = PATTERNS.filter((p) => p.phrase);
  for (const run of encodedRuns(plain.text)) {
    const [start, end] = servedSpan(plain, run.start, run.end);
    out.push([PAYLOAD, `${clip(served.slice(start, end))} (${run.kind})`]);
    const decoded = plainReading(run.decoded);
    for (const { rule, patterns } of PATTERNS) {
      for (const [quote, as] of matchesIn(run.decoded, [decoded], patterns, rule))
        out.push([as, `${quote} (${run.kind})`]);
    }
  }
  const rotated = plainReading(rot13(plain.text));
  let rotFound = false;
  // ROT13 of honest text is gibberish: the phrase rules run only when it holds a word they use.
  if (!ROT13_WORTH.test(rotated.text)) return out;
  for (const { rule, patterns } of phraseRules) {
    for (const [quote] of matchesIn(rotated.text, [rotated], patterns, rule)) {
      const already = found.get(rule)?.some((q) => q.toLowerCase() === quote.toLowerCase());
      if (already === true) continue;
      out.push([rule, `${quote} (rot13)`]);
      rotFound = true;
    }
  }
  if (rotFound) out.push([PAYLOAD, `${clip(served)} (rot13)`]);
  return out;
}
