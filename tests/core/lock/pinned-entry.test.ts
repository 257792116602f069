// The rule every reader of the contract snapshots uses (spec 9, SPEC.md
// 10.9), shared by check, verify, diff, update and the snapshot writer: a
// stored entry stands for the pinned contract only when it is an object
// carrying its key and its digest, as stored, is the lock's.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { describe, it } from "node:test";
import { digestIs, isPinnedEntry, type Digest } from "../../../src/core/contract/digest.js";

/** The digest of canonical JSON written by hand (not by contractpin's canonicalizer). */
const sha = (canonical: string): Digest =>
  `sha256:${createHash("sha256").update(canonical, "utf8").digest("hex")}`;

describe("digestIs and isPinnedEntry", () => {
  const b = { name: "b", description: "B." };
  const pinnedB = sha('{"description":"B.","name":"b"}');

  it("an entry whose digest as stored is the pin, under its own key, is the pinned contract", () => {
    assert.equal(digestIs(b, pinnedB), true);
    assert.equal(isPinnedEntry(b, "name", "b", pinnedB), true);
    assert.equal(
      isPinnedEntry(
        { uriTemplate: "x://{id}" },
        "uriTemplate",
        "x://{id}",
        sha('{"uriTemplate":"x://{id}"}'),
      ),
      true,
    );
  });

  it("is not, under another key: a lock edited to pin b's contract under the name a", () => {
    assert.equal(isPinnedEntry(b, "name", "a", pinnedB), false);
    assert.equal(isPinnedEntry(b, "uriTemplate", "b", pinnedB), false);
  });

  it("is not with another digest, no pin (null), or when it is not an object", () => {
    assert.equal(digestIs(b, sha('{"description":"B!","name":"b"}')), false);
    assert.equal(digestIs(b, null), false);
    assert.equal(isPinnedEntry(b, "name", "b", null), false);
    assert.equal(isPinnedEntry(["b"], "name", "b", sha('["b"]')), false);
    assert.equal(digestIs("text", sha('"text"')), true);
  });

  it("a value that cannot be canonicalized is not the pinned one, and no error", () => {
    let deep: unknown = { name: "b" };
    for (let i = 0; i < 20_000; i++) deep = [deep];
    assert.equal(digestIs(deep, pinnedB), false);
    assert.equal(isPinnedEntry({ name: "b", s: "\ud800" }, "name", "b", pinnedB), false);
  });
});
