// CanonicalWriter's byte limit (src/core/json/canonical-bytes.ts). Node's
// Buffer#utf8Write, given no length, writes nothing at all once the space
// after the offset passes 2^31 - 1 bytes: with a writer that had grown to
// 2 GiB for one huge value, every later digest was sha256(""). The writer now
// passes every write its exact length, checks the count written, never grows
// past its maximum, and starts afresh after a value that does not fit.
// Tested here on the boundary with a small injected maximum, through both of
// its paths (canonicalize's text and its own byte loop).
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { after, describe, it } from "node:test";
import { CanonicalWriter, textPath } from "../../../src/core/json/canonical-bytes.js";
import { canonicalize } from "../../../src/core/json/canonical-json.js";
import { MAX_CANONICAL_BYTES } from "../../../src/core/limits.js";
import { throwsCode } from "../../helpers/assert-code.js";

const sha256 = (data: string | Uint8Array) =>
  `sha256:${createHash("sha256").update(data).digest("hex")}`;

/** The digest of `v` written by `w`, as digestValue does with the shared writer. */
function digestWith(w: CanonicalWriter, v: unknown): string {
  w.reset();
  w.value(v);
  return sha256(w.bytes());
}

/**
 * Values of one shape by the size of their canonical form: `make(n)` is
 * exactly `n` bytes long, or undefined when the shape cannot be that long.
 */
const shapes: [string, (n: number) => unknown][] = [
  // One string, written by one utf8Write: `"` + n - 2 ASCII characters + `"`.
  ["a long ASCII string", (n) => "a".repeat(n - 2)],
  // Two-byte characters: the byte count, not the UTF-16 length, is what must fit.
  ["a string of two-byte characters", (n) => (n % 2 === 0 ? "é".repeat((n - 2) / 2) : undefined)],
  // Astral characters: four bytes for two UTF-16 units.
  ["a string of astral characters", (n) => (n % 4 === 2 ? "😀".repeat((n - 2) / 4) : undefined)],
  // Escapes: `\n` is two bytes for one character.
  ["a string of escapes", (n) => (n % 2 === 0 ? "\n".repeat((n - 2) / 2) : undefined)],
  // Short strings, written byte by byte: `["a","a",...,"rrr"]`.
  [
    "an array of short strings",
    (n) => {
      const k = Math.floor((n - 4) / 4);
      return [...Array.from({ length: k }, () => "a"), "r".repeat(n - 4 - 4 * k)];
    },
  ],
  // An object: `{"k":"` + filler + `"}`.
  ["an object", (n) => ({ k: "x".repeat(n - 8) })],
];

const MAX = 66; // every shape above can be exactly this long

describe("CanonicalWriter with a maximum of 66 bytes", () => {
  after(() => {
    textPath.valuesLeft = 0;
  });

  for (const path of ["text", "bytes"] as const) {
    for (const [what, make] of shapes) {
      it(`${path} path, ${what}: fits exactly, the next size is refused, then digests are right`, () => {
        const w = new CanonicalWriter(MAX);
        const exact = make(MAX);
        const exactText = canonicalize(exact);
        assert.equal(Buffer.byteLength(exactText), MAX);
        textPath.valuesLeft = path === "text" ? 10 : 0;
        assert.equal(digestWith(w, exact), sha256(exactText));

        // The smallest value of this shape over the maximum: one byte over, or one unit.
        const overSize = [MAX + 1, MAX + 2, MAX + 3, MAX + 4].find((n) => make(n) !== undefined)!;
        const over = make(overSize);
        assert.equal(Buffer.byteLength(canonicalize(over)), overSize);
        textPath.valuesLeft = path === "text" ? 10 : 0;
        const message = throwsCode(() => digestWith(w, over), "CANON_TOO_LARGE");
        assert.match(message, /larger than 66 bytes/);
        assert.ok(w.capacity <= MAX, `capacity ${w.capacity} > ${MAX}`);

        // After the refusal, values are written in full again, on both paths.
        for (const next of [{ a: 1 }, "after", make(34), exact]) {
          textPath.valuesLeft = 1;
          assert.equal(digestWith(w, next), sha256(canonicalize(next)));
          textPath.valuesLeft = 0;
          assert.equal(digestWith(w, next), sha256(canonicalize(next)));
        }
      });
    }
  }

  it("never grows past its maximum, and starts afresh after a refusal", () => {
    const w = new CanonicalWriter(MAX, 16);
    textPath.valuesLeft = 0;
    assert.equal(digestWith(w, "b".repeat(MAX - 2)), sha256(`"${"b".repeat(MAX - 2)}"`));
    assert.equal(w.capacity, MAX);
    throwsCode(() => digestWith(w, ["c".repeat(MAX - 3)]), "CANON_TOO_LARGE"); // MAX + 1 bytes
    assert.ok(w.capacity <= 16);
    // Writing on without a reset starts a fresh document, not the rest of the refused one.
    w.value([1]);
    assert.equal(Buffer.from(w.bytes()).toString("utf8"), "[1]");
  });

  it("refuses a maximum that Buffer#utf8Write cannot honour", () => {
    assert.throws(() => new CanonicalWriter(2 ** 31), RangeError);
    assert.throws(() => new CanonicalWriter(0), RangeError);
    assert.ok(MAX_CANONICAL_BYTES < 2 ** 31 - 1);
  });
});
