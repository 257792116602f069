import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { rebaseLock } from "../../src/core/lock-rebase.js";
import type { Lock, PinnedServer } from "../../src/core/lock.js";

/** A file server pinned with a digest that only has to differ between versions. */
function server(version: number): PinnedServer {
  const digest = `sha256:${String(version).padStart(64, "0")}` as const;
  return { transport: "file", path: `v${version}.json`, tool_count: 0, digest, tools: {} };
}

function lock(servers: Record<string, number>, at = "2026-01-01T00:00:00Z"): Lock {
  return {
    generated_at: at,
    servers: Object.fromEntries(Object.entries(servers).map(([n, v]) => [n, server(v)])),
  };
}

const names = (r: ReturnType<typeof rebaseLock>) =>
  "lock" in r
    ? Object.fromEntries(
        Object.entries(r.lock.servers).map(([n, s]) => [n, (s as { path: string }).path]),
      )
    : r;

describe("rebaseLock", () => {
  it("with no other writer, the result is this command's lock", () => {
    const base = lock({ a: 1 });
    const ours = lock({ a: 1, b: 1 }, "2026-02-02T00:00:00Z");
    const r = rebaseLock(base, ours, base);
    assert.deepEqual(r, { lock: ours });
  });

  it("adds, removals and re-pins of distinct servers merge", () => {
    const base = lock({ a: 1, b: 1, c: 1 });
    const current = lock({ a: 2, c: 1, d: 1 }); // another command re-pinned a, removed b, added d
    const ours = lock({ a: 1, b: 1, c: 2, e: 1 }); // this one re-pinned c and added e
    assert.deepEqual(names(rebaseLock(base, ours, current)), {
      a: "v2.json",
      c: "v2.json",
      d: "v1.json",
      e: "v1.json",
    });
  });

  it("a removal by this command is applied on top of the other's change", () => {
    const base = lock({ a: 1, b: 1 });
    const current = lock({ a: 1, b: 1, c: 1 });
    const ours = lock({ b: 1 });
    assert.deepEqual(names(rebaseLock(base, ours, current)), { b: "v1.json", c: "v1.json" });
  });

  it("a server both changed is a conflict, whatever the change", () => {
    assert.deepEqual(rebaseLock(lock({ a: 1 }), lock({ a: 2 }), lock({})), { conflict: "a" });
    assert.deepEqual(rebaseLock(lock({ a: 1 }), lock({ a: 2 }), lock({ a: 3 })), {
      conflict: "a",
    });
    assert.deepEqual(rebaseLock(undefined, lock({ a: 1 }), lock({ a: 1 })), { conflict: "a" });
    assert.deepEqual(rebaseLock(lock({ a: 1 }), lock({}), lock({ a: 2 })), { conflict: "a" });
  });

  it("a lock created or deleted meanwhile: undefined is an empty lock", () => {
    assert.deepEqual(names(rebaseLock(undefined, lock({ a: 1 }), lock({ b: 1 }))), {
      a: "v1.json",
      b: "v1.json",
    });
    assert.deepEqual(names(rebaseLock(lock({ b: 1 }), lock({ a: 1, b: 1 }), undefined)), {
      a: "v1.json",
    });
  });

  it("a server named __proto__ is an ordinary own member", () => {
    const ours: Lock = { generated_at: "2026-01-01T00:00:00Z", servers: {} };
    Object.defineProperty(ours.servers, "__proto__", {
      value: server(1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
    const r = rebaseLock(undefined, ours, lock({ b: 1 }));
    assert.ok("lock" in r);
    assert.ok(Object.hasOwn(r.lock.servers, "__proto__"));
    assert.deepEqual(Object.keys(r.lock.servers).sort(), ["__proto__", "b"]);
  });
});
