/**
 * Where values sit in JSON text that the strict parser has already accepted,
 * so that the guard can pass a server's bytes on unchanged: an admitted
 * tool's text is cut from the message as it arrived, never re-serialised.
 * Valid input is assumed (the strict parser ran first); on anything
 * unexpected these functions return undefined and the caller fails closed.
 */

/** A half-open range of UTF-16 offsets into the text. */
export type Span = [start: number, end: number];

// The characters that open or close strings and containers.
const STRUCTURE = /["[\]{}]/g;

function skipSpace(text: string, i: number): number {
  for (;;) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) i++;
    else return i;
  }
}

/** The end of the string whose opening quote is at `i`. */
function skipString(text: string, i: number): number {
  for (let q = text.indexOf('"', i + 1); q !== -1; q = text.indexOf('"', q + 1)) {
    // A quote preceded by an odd run of backslashes is escaped.
    let slashes = 0;
    while (text.charCodeAt(q - 1 - slashes) === 0x5c) slashes++;
    if (slashes % 2 === 0) return q + 1;
  }
  return -1;
}

/** The end of the value that starts at `i` (no leading whitespace), or -1. */
function skipValue(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === 0x22) return skipString(text, i);
  if (c === 0x7b || c === 0x5b) {
    let depth = 0;
    STRUCTURE.lastIndex = i;
    for (let m = STRUCTURE.exec(text); m !== null; m = STRUCTURE.exec(text)) {
      const ch = m[0];
      if (ch === '"') {
        const end = skipString(text, m.index);
        if (end === -1) return -1;
        STRUCTURE.lastIndex = end;
      } else if (ch === "{" || ch === "[") depth++;
      else if (--depth === 0) return m.index + 1;
    }
    return -1;
  }
  // A number or a literal: up to the next delimiter.
  let j = i;
  for (;;) {
    const d = text.charCodeAt(j);
    if (Number.isNaN(d) || d === 0x2c || d === 0x5d || d === 0x7d || d <= 0x20) return j;
    j++;
  }
}

/** The name of the member whose key opens at `i`, and where its value starts, or undefined. */
function memberKey(text: string, i: number): { name: string; value: number } | undefined {
  const keyEnd = skipString(text, i);
  if (keyEnd === -1) return undefined;
  const name = JSON.parse(text.slice(i, keyEnd)) as string;
  const colon = skipSpace(text, keyEnd);
  if (text.charCodeAt(colon) !== 0x3a) return undefined;
  return { name, value: skipSpace(text, colon + 1) };
}

/** The span of the value at `path` (object member names from the root), or undefined. */
export function valueSpan(text: string, path: readonly string[]): Span | undefined {
  let i = skipSpace(text, text.charCodeAt(0) === 0xfeff ? 1 : 0);
  for (const key of path) {
    if (text.charCodeAt(i) !== 0x7b) return undefined;
    i = skipSpace(text, i + 1);
    let found = -1;
    while (text.charCodeAt(i) === 0x22) {
      const member = memberKey(text, i);
      if (member === undefined) return undefined;
      i = member.value;
      if (member.name === key) {
        found = i;
        break;
      }
      const end = skipValue(text, i);
      if (end === -1) return undefined;
      i = skipSpace(text, end);
      if (text.charCodeAt(i) !== 0x2c) break;
      i = skipSpace(text, i + 1);
    }
    if (found === -1) return undefined;
    i = found;
  }
  const end = skipValue(text, i);
  return end === -1 ? undefined : [i, end];
}

/** The spans of the elements of the array that spans `array`, or undefined if it is not one. */
export function elementSpans(text: string, array: Span): Span[] | undefined {
  let i = array[0];
  if (text.charCodeAt(i) !== 0x5b) return undefined;
  const spans: Span[] = [];
  i = skipSpace(text, i + 1);
  if (text.charCodeAt(i) === 0x5d) return spans;
  for (;;) {
    const end = skipValue(text, i);
    if (end === -1) return undefined;
    spans.push([i, end]);
    i = skipSpace(text, end);
    const c = text.charCodeAt(i);
    if (c === 0x5d) return i + 1 === array[1] ? spans : undefined;
    if (c !== 0x2c) return undefined;
    i = skipSpace(text, i + 1);
  }
}

/** One member of an object in JSON text: its name, where its key starts, and its value's span. */
export interface MemberSpan {
  name: string;
  /** The offset of the key's opening quote. */
  start: number;
  value: Span;
}

/** The members of the object that spans `object`, in order, or undefined if it is not one. */
export function memberSpans(text: string, object: Span): MemberSpan[] | undefined {
  let i = object[0];
  if (text.charCodeAt(i) !== 0x7b) return undefined;
  const members: MemberSpan[] = [];
  i = skipSpace(text, i + 1);
  while (text.charCodeAt(i) === 0x22) {
    const start = i;
    const member = memberKey(text, i);
    if (member === undefined) return undefined;
    i = member.value;
    const end = skipValue(text, i);
    if (end === -1) return undefined;
    members.push({ name: member.name, start, value: [i, end] });
    i = skipSpace(text, end);
    if (text.charCodeAt(i) !== 0x2c) break;
    i = skipSpace(text, i + 1);
  }
  return text.charCodeAt(i) === 0x7d && i + 1 === object[1] ? members : undefined;
}
