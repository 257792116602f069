import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  compareServer,
  compareSurface,
  partAt,
  partPointer,
  withSurface,
  type ServerFinding,
} from "../../../src/core/contract/compare.js";
import { digestTools, type Digest, type ServerDigests } from "../../../src/core/contract/digest.js";
import type { ListDigests } from "../../../src/core/surface/items.js";
import type { SurfaceDigests } from "../../../src/core/surface/surface.js";

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

// The classification of a surface against its pin (SPEC.md 10.6), as data.
// Digests here are stand-ins: the comparison looks at equality only.
const d = (c: string) => `sha256:${c.repeat(64)}` as Digest;
const list = (items: Record<string, string>, digest = "f"): ListDigests => ({
  count: Object.keys(items).length,
  digest: d(digest),
  items: Object.fromEntries(
    Object.entries(items).map(([k, v]) => [k, { digest: d(v), fields: { description: d(v) } }]),
  ),
});
const none: SurfaceDigests = { instructions: null, prompts: null, resource_templates: null };
const ok: ServerFinding = { name: "s", status: "ok", pinnedDigest: d("0"), tools: [] };
const statuses = (pinned: SurfaceDigests, live: SurfaceDigests) =>
  compareSurface(pinned, live).map((f) => [f.part, f.key ?? "", f.status]);

describe("compareSurface", () => {
  it("instructions: added where none were pinned, removed, drifted, unchanged", () => {
    assert.deepEqual(statuses(none, { ...none, instructions: d("a") }), [
      ["instructions", "", "added"],
    ]);
    assert.deepEqual(statuses({ ...none, instructions: d("a") }, none), [
      ["instructions", "", "removed"],
    ]);
    assert.deepEqual(
      statuses({ ...none, instructions: d("a") }, { ...none, instructions: d("b") }),
      [["instructions", "", "drifted"]],
    );
    assert.deepEqual(statuses(none, none), []);
  });
  it("a capability that appears: the list and each item added; one that disappears: removed", () => {
    const live = { ...none, prompts: list({ p: "1" }) };
    assert.deepEqual(statuses(none, live), [
      ["prompts", "", "added"],
      ["prompts", "p", "added"],
    ]);
    assert.deepEqual(statuses(live, none), [
      ["prompts", "", "removed"],
      ["prompts", "p", "removed"],
    ]);
    // An empty list that disappears is still a change.
    assert.deepEqual(statuses({ ...none, prompts: list({}) }, none), [["prompts", "", "removed"]]);
  });
  it("items by key: drifted with the members that moved, added, removed, unchanged", () => {
    const pinned = { ...none, resource_templates: list({ a: "1", b: "2", c: "3" }) };
    const live = { ...none, resource_templates: list({ a: "1", b: "9", d: "4" }, "e") };
    assert.deepEqual(statuses(pinned, live), [
      ["resource_templates", "a", "unchanged"],
      ["resource_templates", "b", "drifted"],
      ["resource_templates", "c", "removed"],
      ["resource_templates", "d", "added"],
    ]);
    const drifted = compareSurface(pinned, live).find((f) => f.key === "b")!;
    assert.deepEqual(drifted.fields, ["description"]);
  });
  it("resources are compared only when pinned", () => {
    assert.deepEqual(statuses(none, { ...none, resources: list({ r: "1" }) }), []);
    assert.deepEqual(statuses({ ...none, resources: list({ r: "1" }) }, none), [
      ["resources", "", "removed"],
      ["resources", "r", "removed"],
    ]);
  });
});

describe("withSurface", () => {
  const added = compareSurface(none, { ...none, prompts: list({ p: "1" }) });
  it("a drifted or removed part fails the server; an added one unless --allow-new", () => {
    assert.equal(withSurface(ok, added).status, "drift");
    assert.equal(withSurface(ok, added, { allowNew: true }).status, "ok");
    const removed = compareSurface({ ...none, instructions: d("a") }, none);
    assert.equal(withSurface(ok, removed, { allowNew: true }).status, "drift");
    assert.equal(withSurface(ok, compareSurface(none, none)).status, "ok");
  });
  it("never turns an unreachable server ok", () => {
    assert.equal(withSurface({ ...ok, status: "unreachable" }, []).status, "unreachable");
  });
});

describe("partAt: the surface part a finding's pointer is in", () => {
  it("inverts partPointer for every part, the rest relative to the part", () => {
    assert.deepEqual(partAt("/instructions"), { part: "instructions", rest: "/instructions" });
    assert.deepEqual(partAt("/prompts/leak/description"), {
      part: "prompts",
      key: "leak",
      rest: "/description",
    });
    assert.deepEqual(partAt("/prompts/leak"), { part: "prompts", key: "leak", rest: "" });
    assert.deepEqual(partAt("/prompts"), { part: "prompts", rest: "" });
    // A template's key is escaped (RFC 6901), and the rest keeps its own escapes.
    assert.deepEqual(partAt("/resource_templates/docs:~1~1{id}/arguments/a~1b"), {
      part: "resource_templates",
      key: "docs://{id}",
      rest: "/arguments/a~1b",
    });
    assert.deepEqual(partAt(partPointer({ part: "resources", key: "file:///a~b" })), {
      part: "resources",
      key: "file:///a~b",
      rest: "",
    });
  });

  it("is undefined for a pointer into no surface part", () => {
    assert.equal(partAt("/command/0"), undefined);
    assert.equal(partAt("/description"), undefined);
    assert.equal(partAt("/tools/x"), undefined);
    assert.equal(partAt(""), undefined);
  });
});
