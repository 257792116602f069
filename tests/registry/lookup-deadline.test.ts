import assert from "node:assert/strict";
import { test } from "node:test";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { lookupSignal } from "../../src/registry/fetch-failure.js";

// Garbage collection on demand, as `node --expose-gc` gives it.
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

test("a look-up's deadline fires though the look-up made garbage meanwhile (the parse of a large answer)", async () => {
  for (const interrupt of [undefined, new AbortController().signal]) {
    const signal = lookupSignal({ timeoutMs: 5, ...(interrupt ? { signal: interrupt } : {}) });
    // A witness timer set after the deadline's fires after it; until then, collect garbage.
    let witnessed = false;
    setTimeout(() => (witnessed = true), 50);
    while (!witnessed) {
      gc();
      await new Promise((resolve) => setImmediate(resolve));
    }
    assert.ok(signal.aborted, "the deadline never fired");
    assert.equal((signal.reason as Error).name, "TimeoutError");
  }
});

test("the run's interrupt aborts a look-up with its own reason", () => {
  const interrupt = new AbortController();
  const signal = lookupSignal({ timeoutMs: 60_000, signal: interrupt.signal });
  interrupt.abort(new Error("interrupted by SIGINT"));
  assert.equal((signal.reason as Error).message, "interrupted by SIGINT");
});
