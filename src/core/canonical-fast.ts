// A second way to write canonical JSON: a plain recursive writer that builds
// a string and leaves the escaping of strings to JSON.stringify (native, and
// exactly spec 3.5's escaping for well-formed strings). Before V8 has compiled
// anything, as in a short `verify`, it is the faster of the two by far, since
// it runs few bytecodes per value; CanonicalWriter uses it for its first
// values and then switches to its own byte loop, which is faster once hot.
// It proves nothing about odd values: at the first sign of one it gives up,
// and the caller's checked path decides and names the error.
import { sortKeys } from "./sort-keys.js";

// Deeper values go to the checked path, which never recurses.
const RECURSION_LIMIT = 200;
// What JSON.stringify writes for a lone surrogate. Otherwise it occurs only
// after an escaped backslash, which merely sends the value the checked way.
const SURROGATE_ESCAPE = /\\ud[89a-f]/;

const GIVE_UP: unique symbol = Symbol("not a plain JSON value");

/**
 * The canonical text of `value`, which sits `depth` levels inside its
 * document, when it is plainly a JSON value: primitives, finite numbers,
 * arrays without holes, plain objects without symbol keys, well-formed
 * strings, nesting under the recursion limit. Otherwise `undefined`.
 */
export function canonicalTextFast(value: unknown, depth: number): string | undefined {
  try {
    const text = write(value, depth);
    return SURROGATE_ESCAPE.test(text) ? undefined : text;
  } catch (err) {
    if (err === GIVE_UP) return undefined;
    throw err;
  }
}

function write(v: unknown, depth: number): string {
  switch (typeof v) {
    case "string":
      return quote(v);
    case "number":
      if (!Number.isFinite(v)) throw GIVE_UP;
      // Number::toString is the formatting of spec 3.6 (and -0 gives "0").
      return "" + v;
    case "boolean":
      return v ? "true" : "false";
    case "object":
      if (v === null) return "null";
      if (depth >= RECURSION_LIMIT) throw GIVE_UP;
      return Array.isArray(v) ? array(v, depth + 1) : object(v, depth + 1);
    default:
      throw GIVE_UP;
  }
}

function array(arr: unknown[], depth: number): string {
  if (Object.getPrototypeOf(arr) !== Array.prototype) throw GIVE_UP;
  const n = arr.length;
  if (n === 0) return "[]";
  // A hole reads as undefined, which write() gives up on.
  let out = "[" + write(arr[0], depth);
  for (let i = 1; i < n; i++) out += "," + write(arr[i], depth);
  return out + "]";
}

function object(obj: object, depth: number): string {
  const proto: unknown = Object.getPrototypeOf(obj);
  if (proto !== Object.prototype && proto !== null) throw GIVE_UP;
  if (Object.getOwnPropertySymbols(obj).length > 0) throw GIVE_UP;
  const keys = Object.keys(obj);
  const n = keys.length;
  if (n === 0) return "{}";
  sortKeys(keys);
  const record = obj as Record<string, unknown>;
  let out = "{" + quote(keys[0]!) + ":" + write(record[keys[0]!], depth);
  for (let i = 1; i < n; i++) {
    const key = keys[i]!;
    out += "," + quote(key) + ":" + write(record[key], depth);
  }
  return out + "}";
}

// Member names and short values repeat across schemas ("type", "string",
// "description"): their quoted forms are kept rather than made again.
const QUOTED = new Map<string, string>();
const QUOTED_MAX = 4096;

function quote(s: string): string {
  if (s.length > 32) return JSON.stringify(s);
  let quoted = QUOTED.get(s);
  if (quoted === undefined) {
    quoted = JSON.stringify(s);
    if (QUOTED.size < QUOTED_MAX) QUOTED.set(s, quoted);
  }
  return quoted;
}
