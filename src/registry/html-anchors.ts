import type { Pace } from "./pace.js";

/**
 * The `<a>` start tags of an HTML page, read in one pass as Python's
 * html.parser (pip's reader of PEP 503 pages) reads a start tag: a tag named
 * `a` (any case) ends at the first `>` outside a quoted attribute value; an
 * attribute is a name, optionally `=` and a value in double or single quotes
 * or bare up to a blank or `>`. A tag the page never closes ends the page:
 * html.parser waits for the rest of it, so nothing after it is read. Every
 * character is looked at a bounded number of times (each scan goes forward
 * from where the last one stopped), whatever the page holds, and the work is
 * counted in `pace`, which lets the event loop run between turns.
 *
 * @param each called with each anchor's attributes (names in lower case,
 *   entities in values decoded; a name without a value maps to ""), in page order.
 */
export async function eachAnchor(
  html: string,
  pace: Pace,
  each: (attributes: Map<string, string>) => void,
): Promise<void> {
  const n = html.length;
  let i = 0;
  for (;;) {
    const open = html.indexOf("<", i);
    pace.count((open < 0 ? n : open) - i + 1);
    if (open < 0) return;
    i = open + 1;
    if (!isAnchorStart(html, i)) continue;
    i++;
    // The attributes, to the tag's `>`; a turn may come between two of them, so that a tag of
    // many MiB (the review's page of unclosed `<a `) does not hold the event loop.
    const attributes = new Map<string, string>();
    for (;;) {
      if (pace.due) await pace.turn();
      const from = i;
      while (i < n && (isBlank(html.charCodeAt(i)) || html.charCodeAt(i) === 0x2f) /* / */) i++;
      // A tag the page never closes (or a quoted value in it): nothing after it is read.
      if (i >= n) return pace.count(n - from);
      if (html.charCodeAt(i) === 0x3e /* > */) {
        pace.count(++i - from);
        each(attributes);
        break;
      }
      const attribute = readAttribute(html, i);
      if (attribute === undefined) return pace.count(n - from);
      attributes.set(attribute.name, attribute.value);
      i = attribute.end;
      pace.count(i - from);
    }
  }
}

/** Whether `<` at `at - 1` opens a tag named `a`: `a` or `A`, then a blank, `/`, `>` or the end. */
function isAnchorStart(html: string, at: number): boolean {
  const c = html.charCodeAt(at);
  if (c !== 0x61 /* a */ && c !== 0x41 /* A */) return false;
  const next = html.charCodeAt(at + 1);
  return Number.isNaN(next) || isBlank(next) || next === 0x2f /* / */ || next === 0x3e; /* > */
}

/**
 * The attribute at `at` (which is neither a blank, `/` nor `>`): a name up to
 * a blank, `/`, `>` or `=` (an `=` that starts it is part of it), then
 * optionally `=` and a value; undefined when a quoted value never closes.
 */
function readAttribute(
  html: string,
  at: number,
): { name: string; value: string; end: number } | undefined {
  const n = html.length;
  let i = at + 1;
  while (i < n && !endsName(html.charCodeAt(i))) i++;
  const name = html.slice(at, i).toLowerCase();
  while (i < n && isBlank(html.charCodeAt(i))) i++;
  if (html.charCodeAt(i) !== 0x3d /* = */) return { name, value: "", end: i };
  i++;
  while (i < n && isBlank(html.charCodeAt(i))) i++;
  let value: string;
  const quote = html.charCodeAt(i);
  if (quote === 0x22 /* " */ || quote === 0x27 /* ' */) {
    const close = html.indexOf(quote === 0x22 ? '"' : "'", i + 1);
    if (close < 0) return undefined;
    value = html.slice(i + 1, close);
    i = close + 1;
  } else {
    const start = i;
    while (i < n && !isBlank(html.charCodeAt(i)) && html.charCodeAt(i) !== 0x3e) i++;
    value = html.slice(start, i);
  }
  return { name, value: value.includes("&") ? decodeEntities(value) : value, end: i };
}

function endsName(c: number): boolean {
  return isBlank(c) || c === 0x2f /* / */ || c === 0x3e /* > */ || c === 0x3d; /* = */
}

/** HTML's blanks: space, tab, line feed, form feed, carriage return. */
function isBlank(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d;
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

/**
 * The text with its character references decoded (`&amp;`, `&#62;`,
 * `&#x3e;`); one it does not know stays as it is. The pattern cannot
 * backtrack past the `&` it started at: each alternative is one run of one
 * class of characters, and a match attempt ends at the first character
 * outside it, so the whole replace is linear in the text.
 */
function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, e: string) => {
    if (e[0] === "#") {
      const code = e[1] === "x" || e[1] === "X" ? parseInt(e.slice(2), 16) : parseInt(e.slice(1));
      return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[e.toLowerCase()] ?? whole;
  });
}
