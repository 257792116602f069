// The strict parser's fast path: V8's JSON.parse does the RFC 8259 grammar in
// native code, and this module proves, for the text at hand, each thing the
// strict parser rejects that JSON.parse lets through. Where it cannot prove
// one, it declines and the character-level parser decides (and names the error).
import type { JsonValue } from "./json-value.js";

// In one pass over the text: every `"` + optional whitespace + `:` (every
// member name ends in one), and every \u escape of a UTF-16 surrogate (valid
// UTF-8 holds no raw surrogates, so only an escape can make a lone one).
// Neither alternative can consume the start of the other.
const SCAN = /"[ \t\n\r]*:|\\u[dD][89a-fA-F]/g;

/**
 * The value of `text` (after any leading byte order mark) when it is provably
 * the value the strict parser returns, else `undefined` (a JSON value never
 * is). Proved here:
 *  - the grammar, trailing content: JSON.parse throws;
 *  - no duplicate member names: every name in the text is counted and equals
 *    the number of members JSON.parse kept (it keeps one of a duplicate pair);
 *  - no number overflowed: every number is finite;
 *  - no lone surrogate: every string is well-formed (checked only when the
 *    text has a surrogate escape at all);
 *  - nesting within `maxDepth`.
 * Member order, `__proto__` as an own member, number rounding and unescaping
 * are the same in both: JSON.parse creates data properties in text order and
 * rounds as Number() does.
 */
export function parseNative(text: string, maxDepth: number): JsonValue | undefined {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  try {
    const value = JSON.parse(body) as JsonValue;
    if (typeof value !== "object" || value === null)
      return scalarOk(value, true) ? value : undefined;
    if (!prototypeIsClean()) return undefined;
    const scan = scanText(body);
    const members = countMembers(value, maxDepth, scan.surrogateEscape);
    if (members < 0) return undefined;
    if (members === scan.nameEnds || members === exactNameCount(body)) return value;
    return undefined;
  } catch {
    // Invalid text, or anything that fails on the way to a proof (even a
    // RangeError): the character-level parser decides.
    return undefined;
  }
}

/**
 * The number of members of every object in `root`, or -1 when a number is
 * not finite, a string or name is not well-formed (when `checkStrings`), or
 * containers nest deeper than `maxDepth`. Iterative: JSON.parse nests as
 * deep as the text does. Members are visited with for...in, much the fastest
 * walk both cold and hot; it also visits enumerable properties inherited from
 * Object.prototype, so parseNative declines when that has any.
 */
function countMembers(root: object, maxDepth: number, checkStrings: boolean): number {
  const stack: object[] = [root];
  const depths: number[] = [1];
  let members = 0;
  // Queues a container for the walk, or checks a scalar; false when it fails.
  const visit = (item: unknown, depth: number): boolean => {
    if (typeof item !== "object") return scalarOk(item, checkStrings);
    if (item !== null) {
      stack.push(item);
      depths.push(depth);
    }
    return true;
  };
  while (stack.length > 0) {
    const container = stack.pop()!;
    const depth = depths.pop()!;
    if (depth > maxDepth) return -1;
    if (Array.isArray(container)) {
      for (let i = 0; i < container.length; i++) {
        if (!visit(container[i], depth + 1)) return -1;
      }
      continue;
    }
    for (const key in container) {
      members++;
      if (checkStrings && !key.isWellFormed()) return -1;
      if (!visit((container as Record<string, unknown>)[key], depth + 1)) return -1;
    }
  }
  return members;
}

/** True when no enumerable property is inherited from Object.prototype (none normally is). */
function prototypeIsClean(): boolean {
  for (const _ in {}) return false;
  return true;
}

function scalarOk(value: unknown, checkStrings: boolean): boolean {
  if (typeof value === "number") return Number.isFinite(value);
  return !checkStrings || typeof value !== "string" || value.isWellFormed();
}

/**
 * `nameEnds`: the number of `"` + optional whitespace + `:` in the text.
 * Every member name ends in one, so this is at least the number of names; it
 * is more only when a string holds such a sequence (an escaped quote before a
 * colon, or a string starting with a colon). Equal to the members JSON.parse
 * kept, it proves there is no duplicate. `surrogateEscape`: whether the text
 * has a \u escape of a surrogate anywhere.
 */
function scanText(text: string): { nameEnds: number; surrogateEscape: boolean } {
  let nameEnds = 0;
  let surrogateEscape = false;
  SCAN.lastIndex = 0;
  while (SCAN.test(text)) {
    if (text.charCodeAt(SCAN.lastIndex - 1) === 0x3a /* : */) nameEnds++;
    else surrogateEscape = true;
  }
  return { nameEnds, surrogateEscape };
}

/**
 * The number of member names in valid JSON text, exactly: string tokens
 * followed by a colon. JSON.parse has accepted the text, so outside strings
 * there is no quote, and a string ends at the first quote after its opening
 * one that no odd run of backslashes escapes. Linear, and works a string at
 * a time with indexOf (a regex over string tokens keeps state per escape and
 * overflows on a string of millions of them).
 */
function exactNameCount(text: string): number {
  let count = 0;
  let open = text.indexOf('"');
  while (open !== -1) {
    let close = text.indexOf('"', open + 1);
    while (close !== -1 && escaped(text, close)) close = text.indexOf('"', close + 1);
    // Not after JSON.parse accepted the text; if ever, no count can match.
    if (close === -1) return -1;
    let next = close + 1;
    while (isSpace(text.charCodeAt(next))) next++;
    if (text.charCodeAt(next) === 0x3a /* : */) count++;
    open = text.indexOf('"', next);
  }
  return count;
}

/** True when the quote at `at` is escaped: an odd number of backslashes right before it. */
function escaped(text: string, at: number): boolean {
  let backslashes = 0;
  while (text.charCodeAt(at - 1 - backslashes) === 0x5c) backslashes++;
  return backslashes % 2 === 1;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}
