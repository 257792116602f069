/**
 * Encoded payloads in text a model reads: a run of base64 or hex that
 * decodes to readable text, and the text read as ROT13. Decoding is cheap
 * and bounded: a run is decoded once, never recursively.
 */

/** A run of encoded text found in a reading, and what it decodes to. */
export interface Encoded {
  /** `base64`, `hex` or `rot13`. */
  kind: "base64" | "hex" | "rot13";
  /** Where the run is, in the reading searched. */
  start: number;
  end: number;
  /** The decoded text. */
  decoded: string;
}

// Long enough for a sentence, so that ids, hashes and short tokens are left alone.
const BASE64 =
  /(?<![A-Za-z0-9+/_-])(?:[A-Za-z0-9+/]{4}){6,}(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?(?![A-Za-z0-9+/=_-])/gu;
const BASE64URL = /(?<![A-Za-z0-9+/_-])[A-Za-z0-9_-]{24,}(?![A-Za-z0-9+/=_-])/gu;
const HEX = /(?<![\dA-Fa-f])(?:0x)?(?:[\dA-Fa-f]{2}(?:[ :]?)){12,}(?![\dA-Fa-f])/gu;
// Decoded bytes that are text: printable ASCII and whitespace, with letters and a space.
const READABLE = /^[\x20-\x7e\t\n\r]+$/u;
const MAX_RUNS = 20;

/** The base64 and hex runs of `text` that decode to readable text (at most 20). */
export function encodedRuns(text: string): Encoded[] {
  const found: Encoded[] = [];
  for (const m of text.matchAll(BASE64)) {
    const decoded = Buffer.from(m[0], "base64").toString("latin1");
    if (readable(decoded)) found.push({ kind: "base64", start: m.index, end: end(m), decoded });
    if (found.length >= MAX_RUNS) return found;
  }
  for (const m of text.matchAll(BASE64URL)) {
    if (!/[_-]/u.test(m[0]) || found.some((f) => f.start === m.index)) continue;
    const decoded = Buffer.from(m[0], "base64url").toString("latin1");
    if (readable(decoded)) found.push({ kind: "base64", start: m.index, end: end(m), decoded });
    if (found.length >= MAX_RUNS) return found;
  }
  for (const m of text.matchAll(HEX)) {
    const digits = m[0].replace(/^0x|[ :]/gu, "");
    if (digits.length % 2 !== 0) continue;
    const decoded = Buffer.from(digits, "hex").toString("latin1");
    if (readable(decoded)) found.push({ kind: "hex", start: m.index, end: end(m), decoded });
    if (found.length >= MAX_RUNS) return found;
  }
  return found;
}

function end(m: RegExpMatchArray): number {
  return m.index! + m[0].length;
}

/** Text, not binary: printable ASCII, with a space and mostly letters. */
function readable(decoded: string): boolean {
  if (decoded.length < 12 || !READABLE.test(decoded) || !/ /u.test(decoded)) return false;
  const letters = decoded.replace(/[^A-Za-z]/gu, "").length;
  return letters >= decoded.length * 0.6;
}

/** ROT13 of the ASCII letters of `text`; every other character kept (same length). */
export function rot13(text: string): string {
  return text.replace(/[A-Za-z]/gu, (c) => {
    const base = c <= "Z" ? 65 : 97;
    return String.fromCharCode(((c.charCodeAt(0) - base + 13) % 26) + base);
  });
}

/** Wording that asks the model to decode something and act on it. */
export const DECODE_INSTRUCTION: RegExp[] = [
  /\b(?:decode|decrypt|deobfuscate|unscramble|translate|convert|rot-?13)\b[^.\n]{0,60}?\b(?:follow|execute|obey|run|apply|perform|carry\s+out|comply|do\s+(?:what|as)|act\s+on)\b/giu,
  /\b(?:follow|execute|obey|run|apply|perform|carry\s+out)\b[^.\n]{0,40}?\b(?:decoded|encoded|base64|rot-?13|hex(?:adecimal)?[\s-]+encoded)\b/giu,
  /\b(?:base64|rot-?13|hex)[\s-]*(?:encoded\s+|decode\s+(?:the\s+)?)?(?:instructions?|payload|message|commands?|directives?)\b/giu,
];
