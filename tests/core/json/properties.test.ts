// Property tests over random JSON values (fast-check).
import assert from "node:assert/strict";
import { it } from "node:test";
import fc from "fast-check";
import "../../helpers/fc-seed.js";
import { canonicalize } from "../../../src/core/json/canonical-json.js";
import type { JsonValue } from "../../../src/core/json/json-value.js";
import { parseJson } from "../../../src/core/json/strict-json.js";

const json = fc.jsonValue({ maxDepth: 6, stringUnit: "binary" }) as fc.Arbitrary<JsonValue>;
const runs = { numRuns: 500 };

/** Key order by the bytes of UTF-16BE, computed without Array.prototype.sort's default order. */
function utf16beCompare(a: string, b: string): number {
  const be = (s: string) => Buffer.from(s, "utf16le").swap16();
  return Buffer.compare(be(a), be(b));
}

/** -0 and 0 are one JSON number: compare values with -0 read as 0. */
function withoutNegativeZero(v: JsonValue): JsonValue {
  if (typeof v === "number") return v === 0 ? 0 : v;
  if (Array.isArray(v)) return v.map(withoutNegativeZero);
  if (v !== null && typeof v === "object") {
    const out: Record<string, JsonValue> = {};
    for (const k of Object.keys(v))
      Object.defineProperty(out, k, {
        value: withoutNegativeZero(v[k]!),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    return out;
  }
  return v;
}

it("canonicalize is idempotent through the strict parser", () => {
  fc.assert(
    fc.property(json, (v) => {
      const once = canonicalize(v);
      assert.equal(canonicalize(parseJson(once)), once);
      assert.equal(canonicalize(parseJson(new TextEncoder().encode(once))), once);
    }),
    runs,
  );
});

it("the canonical form parses back to an equal value", () => {
  fc.assert(
    fc.property(json, (v) => {
      assert.deepEqual(parseJson(canonicalize(v)), withoutNegativeZero(v));
    }),
    runs,
  );
});

it("object members are ordered by the UTF-16BE bytes of their names", () => {
  const key = fc.string({ unit: "binary", maxLength: 6 });
  fc.assert(
    fc.property(fc.uniqueArray(key, { maxLength: 12 }), (keys) => {
      const obj: Record<string, number> = {};
      keys.forEach((k, i) => Object.defineProperty(obj, k, { value: i, enumerable: true }));
      const expected = [...keys].sort(utf16beCompare).map((k) => `${JSON.stringify(k)}:${obj[k]}`);
      assert.equal(canonicalize(obj), `{${expected.join(",")}}`);
    }),
    runs,
  );
});

it("numbers are written as Number.prototype.toString writes them", () => {
  fc.assert(
    fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (x) => {
      assert.equal(canonicalize(x), x.toString());
      assert.equal(canonicalize(parseJson(x.toString())), x.toString());
    }),
    { numRuns: 5000 },
  );
});
