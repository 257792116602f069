import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { keptConfigs } from "../../../src/core/lock/lock-configs.js";
import { rebaseLock } from "../../../src/core/lock/lock-rebase.js";
import type { Lock, PinnedServer } from "../../../src/core/lock/lock.js";

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

describe("rebaseLock and keptConfigs: the configs member (SPEC.md 11)", () => {
  const configs = (files: string[], unpinned: string[] = []) => ({ files, unpinned });

  it("a command that did not touch configs keeps the current ones; one that did writes its own", () => {
    const base = { ...lock({ a: 1 }), configs: configs([".mcp.json"]) };
    const current = { ...lock({ a: 1 }), configs: configs([".cursor/mcp.json", ".mcp.json"]) };
    // add b: configs as it read them (keptConfigs), another command changed them meanwhile.
    const ours = { ...lock({ a: 1, b: 1 }), configs: configs([".mcp.json"]) };
    const kept = rebaseLock(base, ours, current);
    assert.ok("lock" in kept);
    assert.deepEqual(kept.lock.configs, current.configs);
    const mine = { ...lock({ a: 1 }), configs: configs([".mcp.json"], ["slack"]) };
    const written = rebaseLock(base, mine, base);
    assert.ok("lock" in written);
    assert.deepEqual(written.lock.configs, mine.configs);
    // Both changed them: a conflict, nothing written.
    assert.deepEqual(rebaseLock(base, mine, current), { conflict: "configs" });
  });

  it("keptConfigs keeps the files and drops a name the command now pins", () => {
    const previous = { configs: configs([".mcp.json"], ["a", "slack"]) };
    assert.deepEqual(keptConfigs(previous, { a: 1 }), {
      configs: configs([".mcp.json"], ["slack"]),
    });
    assert.deepEqual(keptConfigs({ configs: configs([], ["a"]) }, { a: 1 }), {});
    assert.deepEqual(keptConfigs(undefined, {}), {});
  });
});
