// canonicalTextFast (src/core/canonical-fast.ts) must write exactly what the
// checked canonicalizer writes, and give up, never guess, on anything that
// is not plainly a JSON value; CanonicalWriter then falls back to the checked
// path, which names the error.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import { textPath } from "../../src/core/canonical-bytes.js";
import { canonicalTextFast } from "../../src/core/canonical-fast.js";
import { canonicalize } from "../../src/core/canonical-json.js";
import { contractOf } from "../../src/core/contract.js";
import { digestValue } from "../../src/core/digest.js";
import type { JsonValue } from "../../src/core/json-value.js";
import { parseJson } from "../../src/core/strict-json.js";
import { throwsCode } from "../helpers/assert-code.js";

const vectors = parseJson(readFileSync(new URL("../vectors.json", import.meta.url))) as {
  vectors: { name: string; project: boolean; input: JsonValue; canonical: string }[];
};

describe("canonicalTextFast", () => {
  it("writes every vector's canonical form", () => {
    for (const v of vectors.vectors) {
      const value = v.project ? contractOf(v.input) : v.input;
      assert.equal(canonicalTextFast(value, 0), v.canonical, v.name);
    }
  });

  it("writes what canonicalize writes, on random values", () => {
    const key = fc.oneof(
      fc.constantFrom("__proto__", "constructor", "1", "10", "2", "", "a", "é", "😀", "\u0000"),
      fc.string({ unit: "binary", maxLength: 6 }),
    );
    const { value } = fc.letrec<{ value: unknown }>((tie) => ({
      value: fc.oneof(
        { depthSize: "small" },
        fc.oneof(
          fc.string({ unit: "binary", maxLength: 40 }),
          fc.double({ noNaN: true, noDefaultInfinity: true }),
          fc.constantFrom(-0, 0, 1e21, 1e-7, 5e-324, true, false, null),
        ),
        fc.array(tie("value"), { maxLength: 5 }),
        fc.array(fc.tuple(key, tie("value")), { maxLength: 5 }).map((members) => {
          const obj: Record<string, unknown> = {};
          for (const [k, v] of members)
            Object.defineProperty(obj, k, {
              value: v,
              enumerable: true,
              writable: true,
              configurable: true,
            });
          return obj;
        }),
      ),
    }));
    fc.assert(
      fc.property(value, (v) => {
        assert.equal(canonicalTextFast(v, 0), canonicalize(v));
      }),
      { numRuns: 3000 },
    );
  });

  const oddValues: [string, () => unknown, string][] = [
    ["NaN", () => [1, NaN], "CANON_NON_FINITE_NUMBER"],
    ["Infinity", () => ({ a: Infinity }), "CANON_NON_FINITE_NUMBER"],
    ["undefined in an object", () => ({ a: undefined }), "CANON_UNSUPPORTED_TYPE"],
    ["a function", () => ({ toJSON: () => 1 }), "CANON_UNSUPPORTED_TYPE"],
    ["a bigint", () => [1n], "CANON_UNSUPPORTED_TYPE"],
    ["a symbol", () => [Symbol("s")], "CANON_UNSUPPORTED_TYPE"],
    // eslint-disable-next-line no-sparse-arrays
    ["an array hole", () => [1, , 3], "CANON_ARRAY_HOLE"],
    ["a Date", () => ({ at: new Date(0) }), "CANON_NON_PLAIN_OBJECT"],
    ["a Map", () => [new Map([["a", 1]])], "CANON_NON_PLAIN_OBJECT"],
    ["an Array subclass", () => ({ a: new (class extends Array {})() }), "CANON_NON_PLAIN_OBJECT"],
    ["a symbol-keyed member", () => ({ [Symbol("s")]: 1 }), "CANON_UNSUPPORTED_TYPE"],
    ["a lone surrogate in a value", () => ({ a: "x\ud800" }), "CANON_LONE_SURROGATE"],
    ["a lone surrogate in a name", () => ({ "\udc00": 1 }), "CANON_LONE_SURROGATE"],
  ];

  for (const [what, make, code] of oddValues) {
    it(`gives up on ${what}, and the writer still names the error`, () => {
      assert.equal(canonicalTextFast(make(), 0), undefined);
      throwsCode(() => canonicalize(make()), code);
      throwsCode(() => digestValue(make()), code);
    });
  }

  it("gives up past its recursion limit; the writer handles the depth", () => {
    let deep: unknown = [];
    for (let i = 0; i < 300; i++) deep = [deep];
    assert.equal(canonicalTextFast(deep, 0), undefined);
    assert.equal(canonicalTextFast([[[]]], 0), "[[[]]]");
    assert.equal(digestValue(deep), digestValue(parseJson(canonicalize(deep))));
  });

  it("a string holding a backslash and 'ud800' goes the checked way, which writes it", () => {
    const value = { a: "\\ud800" };
    assert.equal(canonicalTextFast(value, 0), undefined); // conservative: sent the checked way
    assert.equal(canonicalize(value), '{"a":"\\\\ud800"}');
  });

  describe("inside CanonicalWriter", () => {
    before(() => {
      textPath.valuesLeft = Number.POSITIVE_INFINITY;
    });
    after(() => {
      textPath.valuesLeft = 0;
    });
    it("gives the same digests as the byte loop", () => {
      const values: unknown[] = vectors.vectors.map((v) => v.input);
      const viaText = values.map((v) => digestValue(v));
      textPath.valuesLeft = 0;
      const viaBytes = values.map((v) => digestValue(v));
      assert.deepEqual(viaText, viaBytes);
    });
  });
});
