// The comparison behind --repeat (src/core/contract/stability.ts): which tools, and
// which of their fields, differ between reads of one server.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { digestTools, type ServerDigests } from "../../../src/core/contract/digest.js";
import type { JsonObject, JsonValue } from "../../../src/core/json/json-value.js";
import { compareReads, describeUnstable } from "../../../src/core/contract/stability.js";

type Tool = JsonObject;
const tool = (name: string, description: string, extra: Record<string, JsonValue> = {}): Tool => ({
  name,
  description,
  inputSchema: { type: "object" },
  ...extra,
});
const read = (...tools: Tool[]): ServerDigests => digestTools(tools);

describe("compareReads", () => {
  it("finds nothing when every read served the same tools, in any order", () => {
    const a = tool("a", "A.");
    const b = tool("b", "B.", { title: "ignored by the contract" });
    assert.deepEqual(compareReads([read(a, b), read(b, a), read(a, { ...b, title: "other" })]), []);
    assert.deepEqual(compareReads([read(a)]), []);
  });

  it("names each changed field, a field that appears or goes, and tools added or missing", () => {
    const reads = [
      read(tool("b", "B."), tool("gone", "G."), tool("same", "S.")),
      read(
        tool("b", "B.", { annotations: { readOnlyHint: true } }),
        tool("same", "S."),
        tool("__proto__", "P."),
      ),
      read(
        tool("b", "B. Request 7.", { inputSchema: { type: "object", properties: {} } }),
        tool("gone", "G."),
        tool("same", "S."),
      ),
    ];
    assert.deepEqual(compareReads(reads), [
      { name: "__proto__", kind: "added", read: 2 },
      { name: "b", kind: "changed", fields: ["annotations", "description", "inputSchema"] },
      { name: "gone", kind: "missing", read: 2 },
    ]);
  });
});

describe("describeUnstable", () => {
  it("quotes names made visible, and counts what it does not name", () => {
    const unstable = [
      { name: "a\u001b]0;x\u0007", kind: "missing" as const, read: 3 },
      ...["b", "c", "d", "e", "f", "g"].map((name) => ({
        name,
        kind: "changed" as const,
        fields: ["description" as const],
      })),
    ];
    assert.equal(
      describeUnstable(4, unstable),
      'unstable between 4 reads: tool "a<U+001B>]0;x<U+0007>" missing from read 3, tool "b" (description), tool "c" (description), tool "d" (description), tool "e" (description), and 2 more',
    );
    assert.equal(
      describeUnstable(2, unstable.slice(1, 2)),
      'unstable between 2 reads: tool "b" (description)',
    );
  });
});
