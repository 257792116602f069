// The guard's warm-up (src/guard/policy/warm-up.ts) runs the path that the
// first tools/list of a large lock takes: the canonical writer's byte loop,
// not the text path that a process's first values otherwise take. Which
// path runs is not visible in the digests (both write the same bytes:
// tests/core/contract/vectors.test.ts), so this reads the writer's budget of
// text-path values. No timing.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { textPath } from "../../src/core/json/canonical-bytes.js";
import { WARM_UP_FROM_TOOLS, warmUp } from "../../src/guard/policy/warm-up.js";

const nextTurn = () => new Promise<void>((done) => setImmediate(done));

describe("the guard's warm-up", () => {
  it("runs the byte loop from its first slice, for a lock that pins many tools", async (t) => {
    const before = textPath.valuesLeft;
    t.after(() => (textPath.valuesLeft = before));
    textPath.valuesLeft = 1000;
    warmUp(WARM_UP_FROM_TOOLS);
    await nextTurn(); // the first slice has run
    assert.equal(textPath.valuesLeft, 0);
    for (let i = 0; i < 10; i++) await nextTurn(); // and the rest, before the next test
  });

  it("leaves a small lock's process as it is", async (t) => {
    const before = textPath.valuesLeft;
    t.after(() => (textPath.valuesLeft = before));
    textPath.valuesLeft = 1000;
    warmUp(WARM_UP_FROM_TOOLS - 1);
    await nextTurn();
    assert.equal(textPath.valuesLeft, 1000);
  });
});
