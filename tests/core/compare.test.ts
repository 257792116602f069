import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compareServer } from "../../src/core/compare.js";
import { digestTools, type ServerDigests } from "../../src/core/digest.js";

const server = (tools: object[]): ServerDigests => digestTools(tools as never);
const a = { name: "a", description: "A" };
const b = { name: "b", description: "B", inputSchema: { type: "object" } };

describe("compareServer", () => {
  it("classifies removed, added, drifted and unchanged by name, sorted", () => {
    const finding = compareServer(
      "s",
      server([a, b]),
      server([{ ...b, annotations: {} }, { name: "c" }]),
    );
    assert.equal(finding.status, "drift");
    assert.deepEqual(
      finding.tools.map((t) => [t.name, t.status, t.fields]),
      [
        ["a", "removed", undefined],
        ["b", "drifted", ["annotations"]],
        ["c", "added", undefined],
      ],
    );
  });

  it("names every field that moved, including one removed", () => {
    const f = compareServer("s", server([b]), server([{ name: "b", description: "other" }]));
    assert.deepEqual(f.tools[0]!.fields, ["description", "inputSchema"]);
  });

  it("added alone fails unless allowNew", () => {
    assert.equal(compareServer("s", server([a]), server([a, b])).status, "drift");
    assert.equal(compareServer("s", server([a]), server([a, b]), { allowNew: true }).status, "ok");
  });

  it("reports unknown fields when the lock has no field digests", () => {
    const pinned = server([a]);
    pinned.tools["a"]!.fields = {};
    assert.deepEqual(compareServer("s", pinned, server([{ name: "a" }])).tools[0]!.fields, []);
  });
});
