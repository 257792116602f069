// CanonicalWriter (src/core/json/canonical-bytes.ts) writes a process's first
// values through canonicalize and the rest with its own byte loop. Both must
// give the same bytes for every JSON value and the same error for anything
// else: random values go through each, and the digests are compared with
// SHA-256 of canonicalize's text, computed here with node:crypto.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { after, describe, it } from "node:test";
import fc from "fast-check";
import "../../helpers/fc-seed.js";
import { textPath } from "../../../src/core/json/canonical-bytes.js";
import { canonicalize } from "../../../src/core/json/canonical-json.js";
import { digestValue } from "../../../src/core/contract/digest.js";
import { isContractpinError } from "../../../src/core/errors.js";
import { NON_JSON_VALUES } from "../../helpers/non-json-values.js";

const sha256 = (text: string) =>
  `sha256:${createHash("sha256").update(text, "utf8").digest("hex")}`;

const key = fc.oneof(
  fc.constantFrom(
    "__proto__",
    "constructor",
    "toJSON",
    "1",
    "10",
    "2",
    "",
    "a",
    "é",
    "😀",
    "\u0000",
  ),
  fc.string({ unit: "binary", maxLength: 6 }),
);
const { value } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.oneof(
      fc.string({ unit: "binary", maxLength: 40 }),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.constantFrom(-0, 0, 1e21, 1e-7, 5e-324, true, false, null, '"\\\u2028\u001f'),
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

/** The digest of `v` through one path of the writer, or the error code it throws. */
function through(path: "text" | "bytes", v: unknown): string {
  textPath.valuesLeft = path === "text" ? 1 : 0;
  try {
    return digestValue(v);
  } catch (err) {
    assert.ok(isContractpinError(err), String(err));
    return err.code;
  }
}

describe("CanonicalWriter, both paths", () => {
  after(() => {
    textPath.valuesLeft = 0;
  });

  it("give the digest of canonicalize's text, on random values", () => {
    fc.assert(
      fc.property(value, (v) => {
        const expected = sha256(canonicalize(v));
        assert.equal(through("text", v), expected);
        assert.equal(through("bytes", v), expected);
      }),
      { numRuns: 3000 },
    );
  });

  it("give a deep value (past the byte loop's recursion limit) the same digest", () => {
    let deep: unknown = [{ a: "x" }];
    for (let i = 0; i < 300; i++) deep = [deep];
    assert.equal(through("bytes", deep), sha256(canonicalize(deep)));
    assert.equal(through("text", deep), sha256(canonicalize(deep)));
  });

  for (const [what, value, code] of NON_JSON_VALUES) {
    it(`reject ${what} alike (${code})`, () => {
      assert.equal(through("text", value), code);
      assert.equal(through("bytes", value), code);
    });
  }
});
