// A tool's visibility (SPEC.md 13) in the one comparison: compareServed
// (verify, the library's verifyServed) and compareServer (diff, update). A
// tool whose digest matches but whose `_meta.ui.visibility` moved (another
// value, or present on one side only) is drifted with the field
// `_meta.ui.visibility`; its tool digest is the pinned one. The pinned side
// comes from tests/vectors.json (tests/make_vectors.py), never from this code.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { compareServer } from "../../../src/core/contract/compare.js";
import { compareServed } from "../../../src/core/contract/compare-served.js";
import type { ServerDigests } from "../../../src/core/contract/digest.js";
import { explainTools } from "../../../src/engine/explain-server.js";
import type { JsonValue } from "../../../src/core/json/json-value.js";
import { parseJson } from "../../../src/core/json/strict-json.js";

const file = parseJson(readFileSync(new URL("../../vectors.json", import.meta.url))) as unknown as {
  servers: { name: string; tools: JsonValue[]; result: ServerDigests }[];
};
const vector = file.servers.find((s) => s.name === "server-visibility")!;
/** show_chart pinned with `["app"]`; plain with none. */
const pinned = vector.result;

/** The vector's tools with show_chart's `_meta.ui` edited. */
function served(edit: (ui: Record<string, unknown>) => void): JsonValue[] {
  const tools = structuredClone(vector.tools) as Record<string, any>[]; // eslint-disable-line @typescript-eslint/no-explicit-any
  edit(tools[0]!["_meta"]["ui"]);
  return tools as JsonValue[];
}

function showChart(tools: JsonValue[]) {
  const { finding, changed } = compareServed("charts", pinned, { tools });
  return { finding, tool: finding.tools.find((t) => t.name === "show_chart")!, changed };
}

describe("compareServed: a tool's visibility", () => {
  it("is ok when served as pinned", () => {
    const { finding, tool } = showChart(vector.tools);
    assert.equal(finding.status, "ok");
    assert.equal(tool.status, "unchanged");
    assert.equal(tool.sidePins, undefined);
  });

  it("drifts when the value changes, with the tool digest unchanged and no contract field", () => {
    const { finding, tool, changed } = showChart(
      served((ui) => (ui["visibility"] = ["model", "app"])),
    );
    assert.equal(finding.status, "drift");
    assert.equal(tool.status, "drifted");
    assert.deepEqual(tool.sidePins, ["_meta.ui.visibility"]);
    assert.deepEqual(tool.fields, []);
    assert.equal(tool.pinned, pinned.tools["show_chart"]!.digest);
    assert.equal(tool.live, tool.pinned);
    // The server digest is its tools' digests: unchanged too.
    assert.equal(finding.liveDigest, pinned.digest);
    assert.deepEqual(
      changed.map((c) => c.name),
      ["show_chart"],
    );
    // Explained: one finding, tool-visibility-changed at its pointer.
    const explained = explainTools(finding, [], changed, Object.keys(pinned.tools));
    assert.deepEqual(
      explained.tools.get("show_chart")!.findings.map((f) => [f.rule, f.severity, f.pointer]),
      [["tool-visibility-changed", "high", "/_meta/ui/visibility"]],
    );
  });

  it("drifts when it is removed, or no longer reachable (ui not an object)", () => {
    for (const tools of [
      served((ui) => delete ui["visibility"]),
      (() => {
        const t = structuredClone(vector.tools) as Record<string, unknown>[];
        t[0]!["_meta"] = { ui: ["app"] };
        return t as JsonValue[];
      })(),
    ]) {
      const { finding, tool } = showChart(tools);
      assert.equal(finding.status, "drift");
      assert.deepEqual(tool.sidePins, ["_meta.ui.visibility"]);
      assert.equal(tool.live, tool.pinned);
    }
  });

  it("drifts when it is added to a tool pinned without it (a lock written before the pin existed)", () => {
    const tools = structuredClone(vector.tools) as Record<string, any>[]; // eslint-disable-line @typescript-eslint/no-explicit-any
    tools[1]!["_meta"] = { x: 1, ui: { visibility: ["model"] } };
    const { finding } = compareServed("charts", pinned, { tools: tools as JsonValue[] });
    const plain = finding.tools.find((t) => t.name === "plain")!;
    assert.equal(finding.status, "drift");
    assert.equal(plain.status, "drifted");
    assert.deepEqual(plain.sidePins, ["_meta.ui.visibility"]);
    assert.equal(plain.live, plain.pinned);
  });

  it("with the contract moved too: both the field and the visibility", () => {
    const tools = served((ui) => (ui["visibility"] = ["model"]));
    (tools[0] as Record<string, unknown>)["description"] = "Draw any chart.";
    const { tool } = showChart(tools);
    assert.equal(tool.status, "drifted");
    assert.deepEqual(tool.fields, ["description"]);
    assert.deepEqual(tool.sidePins, ["_meta.ui.visibility"]);
    assert.notEqual(tool.live, tool.pinned);
  });

  it("other _meta, title and icons move nothing", () => {
    const tools = served((ui) => (ui["resourceUri"] = "ui://elsewhere"));
    Object.assign(tools[0] as object, { title: "New title", icons: [{ src: "x.png" }] });
    assert.equal(showChart(tools).finding.status, "ok");
  });
});

describe("compareServer: two locks' visibility (diff, update)", () => {
  const without = (d: ServerDigests): ServerDigests => {
    const copy = structuredClone(d);
    delete copy.tools["show_chart"]!.visibility;
    return copy;
  };
  it("a member on one side only, or another digest, is drifted; the same is unchanged", () => {
    for (const [a, b] of [
      [pinned, without(pinned)],
      [without(pinned), pinned],
    ] as const) {
      const tool = compareServer("charts", a, b).tools.find((t) => t.name === "show_chart")!;
      assert.equal(tool.status, "drifted");
      assert.deepEqual(tool.sidePins, ["_meta.ui.visibility"]);
    }
    const other = structuredClone(pinned);
    other.tools["show_chart"]!.visibility = `sha256:${"0".repeat(64)}`;
    assert.equal(compareServer("charts", pinned, other).status, "drift");
    assert.equal(compareServer("charts", pinned, structuredClone(pinned)).status, "ok");
  });
});
