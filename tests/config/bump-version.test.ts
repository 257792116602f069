// upgrade --write's edit of a client config (src/config/wrap/bump-version.ts):
// the old package spec is replaced only where the entry writes it once; an
// entry that holds it twice is left, with why, and its text unchanged.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { planBump } from "../../src/config/wrap/bump-version.js";
import type { ServerSource } from "../../src/core/source/server-source.js";
import { CTX, lockFor } from "./wrap-harness.js";

function bump(text: string) {
  const before = lockFor(text);
  const source = before.servers["dict"]! as Extract<ServerSource, { transport: "stdio" }>;
  const command = source.command.map((a) => (a === "pkg@1.0.0" ? "pkg@1.1.0" : a));
  return planBump(
    new TextEncoder().encode(text),
    "mcp.json",
    {
      before,
      after: { dict: { ...source, command } },
      args: { dict: { from: "pkg@1.0.0", to: "pkg@1.1.0" } },
    },
    { ...CTX, lockDir: "/abs" },
  )!;
}

describe("planBump", () => {
  it("replaces the version an entry writes once", () => {
    const text = '{"mcpServers":{"dict":{"command":"npx","args":["-y","pkg@1.0.0"]}}}';
    const plan = bump(text);
    assert.deepEqual(plan.changed, ["dict"]);
    assert.deepEqual(plan.left, []);
    assert.equal(plan.after, text.replace("pkg@1.0.0", "pkg@1.1.0"));
  });

  it("leaves an entry that writes the version twice, and says why", () => {
    const text =
      '{"mcpServers":{"dict":{"command":"npx","args":["-y","pkg@1.0.0"],"env":{"SPEC":"pkg@1.0.0"}}}}';
    const plan = bump(text);
    assert.deepEqual(plan.changed, []);
    assert.deepEqual(plan.left, [
      { name: "dict", reason: "pkg@1.0.0 is not written there once as a plain string" },
    ]);
    assert.equal(plan.after, text);
  });
});
