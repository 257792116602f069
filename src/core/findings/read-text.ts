import { confusableMap } from "./confusables.js";
import { lazy } from "../lazy.js";

/**
 * A text as the rules read it, each UTF-16 unit of `text` remembering the
 * span [`from`, `to`) of the served text it came from, so that a match is
 * quoted exactly as served.
 */
export interface Reading {
  readonly text: string;
  /** Absent when the reading is the served text itself (unit i came from [i, i + 1)). */
  readonly from?: readonly number[];
  readonly to?: readonly number[];
}

// Characters a reviewer cannot see, removed before matching so that they do
// not split a phrase; they are reported by their own rule.
// Each made on first use (lazy.ts).
const IGNORABLE = lazy(() => /^[\p{Cf}\p{Default_Ignorable_Code_Point}]$/u);
const MARKS = lazy(() => /\p{M}/gu);
const UPPER = lazy(() => /^\p{Lu}$/u);
const ENTITY = /&(?:#(\d{1,7})|#x([\da-f]{1,6})|([a-z]{2,6}));/iy;
const NAMED: Record<string, string> = {
  lt: "<",
  gt: ">",
  amp: "&",
  quot: '"',
  apos: "'",
  nbsp: " ",
};

/** Builds a reading unit by unit. */
class Builder {
  text = "";
  from: number[] = [];
  to: number[] = [];
  push(s: string, from: number, to: number): void {
    this.text += s;
    for (let i = 0; i < s.length; i++) {
      this.from.push(from);
      this.to.push(to);
    }
  }
  done(): Reading {
    return { text: this.text, from: this.from, to: this.to };
  }
}

/**
 * The plain reading of a served text: HTML character references decoded,
 * compatibility forms (NFKD) read as their letters, combining marks and
 * invisible characters removed, and each non-ASCII letter that looks like
 * ASCII (UTS #39 confusables: Cyrillic `а`, Greek `ο`) read as that ASCII,
 * its case kept. Defanged URLs (`hxxps://evil[.]example`) are read as URLs.
 */
export function plainReading(text: string): Reading {
  // Most text is ASCII without references: read as it is.
  if (/^[\t\n\r\x20-\x25\x27-\x7e]*$/u.test(text)) return refang(identity(text));
  const out = new Builder();
  let i = 0;
  while (i < text.length) {
    ENTITY.lastIndex = i;
    const entity = ENTITY.exec(text);
    const decoded = entity === null ? undefined : decodeEntity(entity);
    if (entity !== null && decoded !== undefined) {
      readInto(out, decoded, i, i + entity[0].length);
      i += entity[0].length;
      continue;
    }
    const cp = text.codePointAt(i)!;
    const size = cp > 0xffff ? 2 : 1;
    readInto(out, text.slice(i, i + size), i, i + size);
    i += size;
  }
  return refang(out.done());
}

function identity(text: string): Reading {
  return { text };
}

function decodeEntity(m: RegExpExecArray): string | undefined {
  const [, dec, hex, name] = m;
  if (name !== undefined) return NAMED[name.toLowerCase()];
  const cp = dec !== undefined ? Number(dec) : parseInt(hex!, 16);
  return cp <= 0x10ffff && (cp < 0xd800 || cp > 0xdfff) ? String.fromCodePoint(cp) : undefined;
}

/** One served character (or a decoded reference), read into `out` from [from, to). */
function readInto(out: Builder, chars: string, from: number, to: number): void {
  const map = confusableMap();
  for (const ch of chars) {
    if (ch.charCodeAt(0) < 0x80) {
      out.push(ch, from, to);
      continue;
    }
    if (IGNORABLE().test(ch)) continue;
    for (const part of ch.normalize("NFKD").replace(MARKS(), "")) {
      const cp = part.codePointAt(0)!;
      const prototype = cp < 0x80 ? undefined : map.get(cp);
      if (prototype === undefined) out.push(part, from, to);
      // The prototype of `І` is `l`; a capital reads as the capital letter.
      else out.push(UPPER().test(part) ? upper(prototype) : prototype, from, to);
    }
  }
}

/** A capital's prototype: `l` is the prototype of `I` too, and a capital `І` reads `I`. */
function upper(prototype: string): string {
  return prototype === "l" ? "I" : prototype.toUpperCase();
}

/** Replaces each match of `pattern` (global) by `replace(match)`, keeping origins. */
export function replaceIn(
  r: Reading,
  pattern: RegExp,
  replace: (m: RegExpExecArray) => string,
): Reading {
  pattern.lastIndex = 0;
  if (!pattern.test(r.text)) return r;
  pattern.lastIndex = 0;
  const out = new Builder();
  let at = 0;
  for (const m of r.text.matchAll(pattern)) {
    copy(out, r, at, m.index);
    const end = m.index + m[0].length;
    if (end > m.index) out.push(replace(m), ...servedSpan(r, m.index, end));
    at = end;
  }
  copy(out, r, at, r.text.length);
  return out.done();
}

function copy(out: Builder, r: Reading, start: number, end: number): void {
  out.text += r.text.slice(start, end);
  for (let i = start; i < end; i++) {
    out.from.push(r.from === undefined ? i : r.from[i]!);
    out.to.push(r.to === undefined ? i + 1 : r.to[i]!);
  }
}

// hxxp, h**p, fxp; [.] (.) {.} [dot] (dot); [:] [://].
const DEFANGED_SCHEME = /\b(?:hxxp|hxtp|htxp|h\*\*p|h__p)(s?)(?=\[?:)/giu;
const DEFANGED_DOT = /\s?[[({]\s?(?:\.|dot)\s?[\])}]\s?/giu;
const DEFANGED_COLON = /\[:\]|\[:\/\/\]/gu;

function refang(r: Reading): Reading {
  let out = replaceIn(r, DEFANGED_SCHEME, (m) => `http${m[1] ?? ""}`);
  out = replaceIn(out, DEFANGED_COLON, (m) => (m[0] === "[:]" ? ":" : "://"));
  return replaceIn(out, DEFANGED_DOT, () => ".");
}

// Single letters apart: "i g n o r e" (three or more), "d-o", "i.g.n.o.r.e" (two or more).
const SPACED = lazy(
  () =>
    /(?<![\p{L}\p{N}])[\p{L}\p{N}@$](?:(?: [\p{L}\p{N}@$]){2,}|(?:[._*\u00b7-][\p{L}\p{N}@$])+)(?![\p{L}\p{N}])/gu,
);
// A word that mixes letters with the digits or signs leetspeak writes them as.
const LEET_WORD = lazy(
  () => /(?<![\p{L}\p{N}@$])(?=[\p{L}\p{N}@$]*\p{L})(?=[\p{L}\p{N}@$]*[0-9@$])[\p{L}\p{N}@$]{3,}/gu,
);
const LEET: Record<string, string> = {
  "0": "o",
  "1": "i",
  "3": "e",
  "4": "a",
  "5": "s",
  "7": "t",
  "8": "b",
  "9": "g",
  "@": "a",
  $: "s",
};

/**
 * The folded readings of a plain one, for the phrase rules: letters spaced
 * out are joined ("i g n o r e" reads "ignore") and leetspeak is read as
 * letters ("1gn0r3" reads "ignore"; `1` once as `i`, once as `l`). Only the
 * readings that differ from `plain` are returned.
 */
export function foldedReadings(plain: Reading): Reading[] {
  const joined = replaceIn(plain, SPACED(), (m) => m[0].replace(/[ ._*\u00b7-]/gu, ""));
  const leet = (one: string) =>
    replaceIn(joined, LEET_WORD(), (m) =>
      m[0].replace(/[0-9@$]/gu, (c) => (c === "1" ? one : (LEET[c] ?? c))),
    );
  const result: Reading[] = [];
  const asI = leet("i");
  if (asI.text !== plain.text) result.push(asI);
  if (/1/u.test(joined.text)) {
    const asL = leet("l");
    if (asL.text !== asI.text) result.push(asL);
  }
  if (joined.text !== plain.text && joined.text !== asI.text) result.push(joined);
  return result;
}

/** The served text a match [start, end) of a reading came from. */
export function servedSpan(r: Reading, start: number, end: number): [number, number] {
  if (r.from === undefined || r.to === undefined) return [start, end];
  return [r.from[start]!, r.to[end - 1]!];
}
