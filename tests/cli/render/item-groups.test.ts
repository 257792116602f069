// Which findings the Markdown list and the GitHub annotations show as one
// (src/cli/render/item-groups.ts): only those that say the very same thing
// (rule, severity, place, before and after) about tools of one server, with
// one outcome; anything else stays apart.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { toFinding } from "../../../src/core/findings/finding.js";
import { groupItems } from "../../../src/cli/render/item-groups.js";
import type { ReportItem } from "../../../src/cli/render/report-model.js";

function item(tool: string, before: string, after: string, failing = true): ReportItem {
  const finding = toFinding(
    { rule: "description-changed", pointer: "/description", before, after },
    tool,
    "s",
  );
  return { finding, server: "s", tool, failing, line: 1 };
}

const toolsOf = (items: ReportItem[]) => groupItems(items).map((g) => g.items.map((i) => i.tool));

describe("groupItems", () => {
  it("groups the same finding of several tools", () => {
    assert.deepEqual(toolsOf([item("a", "x", "y"), item("b", "x", "y")]), [["a", "b"]]);
  });

  it("keeps apart findings with another before, or another after", () => {
    assert.deepEqual(toolsOf([item("a", "x", "y"), item("b", "other", "y")]), [["a"], ["b"]]);
    assert.deepEqual(toolsOf([item("a", "x", "y"), item("b", "x", "other")]), [["a"], ["b"]]);
  });

  it("keeps a failing finding apart from the same one allowed", () => {
    assert.deepEqual(toolsOf([item("a", "x", "y"), item("b", "x", "y", false)]), [["a"], ["b"]]);
  });

  it("keeps apart the same finding of two servers", () => {
    const other = { ...item("b", "x", "y"), server: "t" };
    assert.deepEqual(toolsOf([item("a", "x", "y"), other]), [["a"], ["b"]]);
  });
});
