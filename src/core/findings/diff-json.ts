import { canonicalize } from "../json/canonical-json.js";
import { appendPointer } from "../json/json-pointer.js";
import { getMember, isJsonObject, type JsonValue } from "../json/json-value.js";
import { sortKeys } from "../json/sort-keys.js";
import { visibleText } from "../visible-text.js";

/**
 * One difference between two JSON values: the value at `pointer` before and
 * after. An absent `before` means the member was added; an absent `after`,
 * that it was removed.
 */
export interface JsonChange {
  /** RFC 6901 JSON Pointer from the root of the compared values ("" for the root). */
  pointer: string;
  before?: JsonValue;
  after?: JsonValue;
}

/**
 * The structural difference of two JSON values, as the leaves that differ,
 * in document order (members sorted by UTF-16 code units, as canonical JSON
 * sorts them). Objects are compared member by member (own members only:
 * `__proto__` is data); arrays of objects or arrays item by item, by index;
 * an array of scalars only (a `required`, an `enum`, a `type` list) as one
 * value, since an insertion would otherwise shift every later index. Values
 * equal in canonical JSON are equal: `-0` equals `0`. Never recurses, so any
 * depth the strict parser accepts is safe.
 *
 * @param before the old value; undefined when absent.
 * @param after the new value; undefined when absent.
 * @param pointer prefix of every pointer (default "": the root).
 */
export function diffJson(
  before: JsonValue | undefined,
  after: JsonValue | undefined,
  pointer = "",
): JsonChange[] {
  const changes: JsonChange[] = [];
  // Work list, last first: pairs still to compare.
  const stack: [string, JsonValue | undefined, JsonValue | undefined][] = [
    [pointer, before, after],
  ];
  while (stack.length > 0) {
    const [at, a, b] = stack.pop()!;
    if (a === undefined || b === undefined) {
      if (a !== b) changes.push(change(at, a, b));
    } else if (isJsonObject(a) && isJsonObject(b)) {
      const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
      sortKeys(keys);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i]!;
        stack.push([appendPointer(at, key), getMember(a, key), getMember(b, key)]);
      }
    } else if (Array.isArray(a) && Array.isArray(b) && !(allScalars(a) && allScalars(b))) {
      for (let i = Math.max(a.length, b.length) - 1; i >= 0; i--) {
        stack.push([appendPointer(at, i), a[i], b[i]]);
      }
    } else if (!sameJson(a, b)) {
      changes.push(change(at, a, b));
    }
  }
  return changes;
}

/**
 * True when two JSON values have the same canonical JSON: `-0` equals `0`,
 * member order does not matter, `__proto__` is an ordinary member. Compares
 * in place (no serialisation) and never recurses.
 */
export function sameJson(a: JsonValue, b: JsonValue): boolean {
  const stack: [JsonValue | undefined, JsonValue | undefined][] = [[a, b]];
  while (stack.length > 0) {
    const [x, y] = stack.pop()!;
    if (x === y) continue; // also -0 and 0
    if (typeof x !== "object" || typeof y !== "object" || x === null || y === null) return false;
    if (Array.isArray(x)) {
      if (!Array.isArray(y) || x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) stack.push([x[i], y[i]]);
    } else {
      if (Array.isArray(y)) return false;
      const keys = Object.keys(x);
      if (keys.length !== Object.keys(y).length) return false;
      for (const key of keys) {
        if (!Object.hasOwn(y, key)) return false;
        stack.push([getMember(x, key), getMember(y, key)]);
      }
    }
  }
  return true;
}

/** Options of {@link renderJsonValue}. */
export interface RenderValueOptions {
  /** Longest result in characters before the middle is cut out (default 80). */
  maxLength?: number;
}

/**
 * A JSON value in canonical JSON, for one line of a report: shortened to
 * `maxLength` with `…` in the middle when longer, and passed through
 * {@link visibleText} (canonical JSON escapes C0 controls, not bidi or format
 * characters). `(absent)` for undefined.
 */
export function renderJsonValue(
  value: JsonValue | undefined,
  options: RenderValueOptions = {},
): string {
  if (value === undefined) return "(absent)";
  const max = Math.max(options.maxLength ?? 80, 9);
  let text = canonicalize(value);
  if (text.length > max) {
    const points = Array.from(text);
    if (points.length > max) {
      const head = Math.ceil((max - 1) / 2);
      text =
        points.slice(0, head).join("") +
        "…" +
        points.slice(points.length - (max - 1 - head)).join("");
    }
  }
  return visibleText(text);
}

/**
 * One change as one line, e.g.
 * `inputSchema/properties/path/type: "string" -> ["string","null"]`:
 * the pointer without its leading slash, then the values by
 * {@link renderJsonValue}. The pointer's tokens are server text too, and are
 * made visible.
 */
export function renderJsonChange(c: JsonChange, options: RenderValueOptions = {}): string {
  const where = visibleText(c.pointer.startsWith("/") ? c.pointer.slice(1) : c.pointer);
  return `${where}: ${renderJsonValue(c.before, options)} -> ${renderJsonValue(c.after, options)}`;
}

function change(pointer: string, before: JsonValue | undefined, after: JsonValue | undefined) {
  const c: JsonChange = { pointer };
  if (before !== undefined) c.before = before;
  if (after !== undefined) c.after = after;
  return c;
}

function allScalars(items: readonly JsonValue[]): boolean {
  return items.every((v) => v === null || typeof v !== "object");
}
