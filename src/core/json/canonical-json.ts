import { sortKeys } from "./sort-keys.js";
import { ContractpinError, type CanonicalErrorCode } from "../errors.js";
import { pathKey } from "./json-value.js";
import { MAX_DEPTH } from "./strict-json.js";

/** The identifier of this canonicalization, as written in the lock (spec 8). */
export const CANONICALIZATION = "contractpin-canonical-json/1";

type Container = readonly unknown[] | Readonly<Record<string, unknown>>;

/**
 * Serializes a JSON value by contractpin-canonical-json/1 (RFC 8785, spec 3):
 * members sorted by UTF-16 code units, no whitespace, the minimal escape table
 * with lowercase hex, ECMAScript number formatting. The result is a string of
 * well-formed UTF-16 whose UTF-8 encoding is the canonical bytes.
 *
 * Anything that is not a JSON value fails loudly (spec 3.8): NaN, ±Infinity,
 * undefined, functions, bigint, symbols, array holes, Date, Map and other
 * objects that are not plain, symbol-keyed members, strings with lone
 * surrogates, and nesting deeper than {@link MAX_DEPTH} (which also catches
 * cycles). `toJSON` is never called. Never recurses.
 *
 * @throws ContractpinError with a CANON_* code and the JSON path of the value.
 */
export function canonicalize(value: unknown): string {
  return canonicalizeAt(value, 0);
}

/**
 * canonicalize for a value nested `depth` levels inside the document being
 * written, so that the nesting limit counts from the document's root.
 *
 * @internal For CanonicalWriter.
 */
export function canonicalizeAt(value: unknown, depth: number): string {
  const frames: Container[] = [];
  const frameKeys: (string[] | null)[] = [];
  const frameIndex: number[] = [];
  let out = "";
  let v = value;
  for (;;) {
    // Write `v`, or open its container and continue with the first element.
    switch (typeof v) {
      case "string":
        out += quote(v, frames, frameKeys, frameIndex);
        break;
      case "number":
        if (!Number.isFinite(v))
          fail(
            "CANON_NON_FINITE_NUMBER",
            `${v} is not a JSON number`,
            frames,
            frameKeys,
            frameIndex,
          );
        // Number::toString is exactly the ECMAScript formatting of spec 3.6 (and -0 gives "0").
        out += String(v);
        break;
      case "boolean":
        out += v ? "true" : "false";
        break;
      case "object": {
        if (v === null) {
          out += "null";
          break;
        }
        if (frames.length + depth >= MAX_DEPTH) {
          fail(
            "CANON_TOO_DEEP",
            `nesting deeper than ${MAX_DEPTH} levels (or a cycle)`,
            frames,
            frameKeys,
            frameIndex,
          );
        }
        if (Array.isArray(v)) {
          if (Object.getPrototypeOf(v) !== Array.prototype) {
            fail(
              "CANON_NON_PLAIN_OBJECT",
              "an Array subclass is not a JSON value",
              frames,
              frameKeys,
              frameIndex,
            );
          }
          if (v.length === 0) {
            out += "[]";
            break;
          }
          frames.push(v);
          frameKeys.push(null);
          frameIndex.push(0);
          out += "[";
          if (!(0 in v))
            fail("CANON_ARRAY_HOLE", "array has a hole", frames, frameKeys, frameIndex);
          v = v[0];
          continue;
        }
        const proto: unknown = Object.getPrototypeOf(v);
        if (proto !== Object.prototype && proto !== null) {
          const kind = (v as object).constructor?.name ?? "object";
          fail(
            "CANON_NON_PLAIN_OBJECT",
            `${kind} is not a plain object`,
            frames,
            frameKeys,
            frameIndex,
          );
        }
        if (Object.getOwnPropertySymbols(v).length > 0) {
          fail(
            "CANON_UNSUPPORTED_TYPE",
            "object has a symbol-keyed member",
            frames,
            frameKeys,
            frameIndex,
          );
        }
        const keys = Object.keys(v);
        sortKeys(keys);
        if (keys.length === 0) {
          out += "{}";
          break;
        }
        frames.push(v as Record<string, unknown>);
        frameKeys.push(keys);
        frameIndex.push(0);
        out += "{" + quote(keys[0]!, frames, frameKeys, frameIndex) + ":";
        v = (v as Record<string, unknown>)[keys[0]!];
        continue;
      }
      default:
        fail(
          "CANON_UNSUPPORTED_TYPE",
          `${typeof v} is not a JSON value`,
          frames,
          frameKeys,
          frameIndex,
        );
    }

    // `v` is written: move to the next element, closing finished containers.
    for (;;) {
      const depth = frames.length;
      if (depth === 0) return out;
      const index = ++frameIndex[depth - 1]!;
      const keys = frameKeys[depth - 1];
      if (keys === null || keys === undefined) {
        const arr = frames[depth - 1] as readonly unknown[];
        if (index < arr.length) {
          out += ",";
          if (!(index in arr))
            fail("CANON_ARRAY_HOLE", "array has a hole", frames, frameKeys, frameIndex);
          v = arr[index];
          break;
        }
        out += "]";
      } else if (index < keys.length) {
        const key = keys[index]!;
        out += "," + quote(key, frames, frameKeys, frameIndex) + ":";
        v = (frames[depth - 1] as Readonly<Record<string, unknown>>)[key];
        break;
      } else {
        out += "}";
      }
      frames.pop();
      frameKeys.pop();
      frameIndex.pop();
    }
  }
}

function quote(
  s: string,
  frames: Container[],
  frameKeys: (string[] | null)[],
  frameIndex: number[],
): string {
  if (!s.isWellFormed()) {
    fail("CANON_LONE_SURROGATE", "string contains a lone surrogate", frames, frameKeys, frameIndex);
  }
  // For well-formed strings JSON.stringify's escaping is exactly spec 3.5:
  // the short escapes, \u00xx in lowercase for other controls, all else literal.
  return JSON.stringify(s);
}

function fail(
  code: CanonicalErrorCode,
  message: string,
  frames: Container[],
  frameKeys: (string[] | null)[],
  frameIndex: number[],
): never {
  let path = "$";
  for (let d = 0; d < frames.length; d++) {
    const keys = frameKeys[d];
    const index = frameIndex[d]!;
    path = keys ? pathKey(path, keys[index] ?? "") : `${path}[${index}]`;
  }
  if (path.length > 120) path = `${path.slice(0, 58)}...${path.slice(-59)}`;
  throw new ContractpinError(code, `cannot canonicalize: ${message} at ${path}`);
}
