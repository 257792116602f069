import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ServerFinding, ToolStatus } from "../../../src/core/contract/compare.js";
import type { Finding } from "../../../src/core/findings/finding.js";
import type { RuleId, Severity } from "../../../src/core/findings/rules.js";
import { verdict, type ExplainedView } from "../../../src/core/contract/verdict.js";

// The verdict is pure: these findings and explanations are written by hand,
// one server per case, so each case names the one rule it checks.

const D1 = `sha256:${"1".repeat(64)}` as const;
const D2 = `sha256:${"2".repeat(64)}` as const;

type Part = "tools" | "instructions" | "prompts" | "resource_templates" | "resources";
const PARTS: Part[] = ["tools", "instructions", "prompts", "resource_templates", "resources"];

/** One server whose only moved item is of `part`. */
function serverWith(part: Part, status: Exclude<ToolStatus, "unchanged">): ServerFinding {
  const digests = {
    ...(status === "added" ? {} : { pinned: D1 }),
    ...(status === "removed" ? {} : { live: D2 }),
  };
  const base: ServerFinding = { name: "s", status: "drift", pinnedDigest: D1, tools: [] };
  if (part === "tools") return { ...base, tools: [{ name: "t", status, ...digests }] };
  const key = part === "instructions" ? {} : { key: "k" };
  return { ...base, tools: [], surface: [{ part, ...key, status, ...digests }] };
}

function pointerOf(part: Part): string | undefined {
  if (part === "tools") return "/description";
  return part === "instructions" ? "/instructions" : `/${part}/k/description`;
}

function finding(part: Part, rule: RuleId, severity: Severity): Finding {
  const f: Finding = { rule, severity, server: "s" };
  if (part === "tools") f.tool = "t";
  const pointer = pointerOf(part);
  if (pointer !== undefined) f.pointer = pointer;
  return f;
}

/** The explainer's view of that server: its item's pinned contract (or not) and findings. */
function explainedAs(
  part: Part,
  { before, findings }: { before: boolean; findings: Finding[] },
): Map<string, ExplainedView> {
  const pinned = before ? { before: { description: "old" } } : {};
  const view: ExplainedView =
    part === "tools"
      ? { tools: new Map([["t", { ...pinned, findings }]]), findings: [] }
      : {
          tools: new Map(),
          surface: new Map([[part === "instructions" ? part : `${part}\u0000k`, pinned]]),
          findings,
        };
  return new Map([["s", view]]);
}

for (const part of PARTS) {
  describe(`verdict: ${part}`, () => {
    const low = finding(part, "description-changed", "low");
    const high = finding(part, "description-directive", "high");

    it("an added item fails without --allow-new, even under --fail-on critical", () => {
      const s = serverWith(part, "added");
      const explained = explainedAs(part, { before: false, findings: [low] });
      assert.equal(verdict([s], undefined, { allowNew: false }), 1);
      assert.equal(verdict([s], explained, { allowNew: false, failOn: "critical" }), 1);
      assert.equal(verdict([s], undefined, { allowNew: true }), 0);
      assert.equal(verdict([s], explained, { allowNew: true, failOn: "critical" }), 0);
    });

    it("a drifted item fails; under --fail-on only when explained and every finding is below", () => {
      const s = serverWith(part, "drifted");
      assert.equal(verdict([s], undefined, { allowNew: true }), 1);
      const below = explainedAs(part, { before: true, findings: [low] });
      assert.equal(verdict([s], below, { allowNew: false, failOn: "high" }), 0);
      assert.equal(verdict([s], below, { allowNew: false, failOn: "low" }), 1);
      const above = explainedAs(part, { before: true, findings: [low, high] });
      assert.equal(verdict([s], above, { allowNew: false, failOn: "high" }), 1);
      assert.equal(verdict([s], above, { allowNew: false, failOn: "critical" }), 0);
    });

    it("a drift no snapshot can classify is not known to be below anything", () => {
      const s = serverWith(part, "drifted");
      const unknown = explainedAs(part, { before: false, findings: [low] });
      assert.equal(verdict([s], unknown, { allowNew: false, failOn: "critical" }), 1);
      assert.equal(verdict([s], undefined, { allowNew: false, failOn: "critical" }), 1);
    });

    it("a moved item without a finding of its own does not pass --fail-on", () => {
      const s = serverWith(part, "removed");
      const none = explainedAs(part, { before: true, findings: [] });
      assert.equal(verdict([s], none, { allowNew: false, failOn: "critical" }), 1);
      const removed = explainedAs(part, { before: true, findings: [low] });
      assert.equal(verdict([s], removed, { allowNew: false, failOn: "high" }), 0);
    });
  });
}

describe("verdict: servers", () => {
  const ok: ServerFinding = { name: "s", status: "ok", pinnedDigest: D1, tools: [] };
  const down: ServerFinding = { ...ok, status: "unreachable", error: "connection refused" };
  it("0 only when nothing fails; an unreachable server always fails", () => {
    assert.equal(verdict([], undefined, { allowNew: false }), 0);
    assert.equal(verdict([ok, ok], undefined, { allowNew: false }), 0);
    assert.equal(verdict([ok, down], undefined, { allowNew: true }), 1);
    const explained = new Map([["s", { tools: new Map(), findings: [] }]]);
    assert.equal(verdict([down], explained, { allowNew: true, failOn: "critical" }), 1);
  });

  it("a server that drifted with no item moved (diff: its source changed) fails", () => {
    const moved: ServerFinding = { ...ok, status: "drift" };
    assert.equal(verdict([moved], undefined, { allowNew: true }), 1);
  });

  it("a finding about the server at the threshold fails the whole server", () => {
    const s = serverWith("prompts", "drifted");
    const view = explainedAs("prompts", {
      before: true,
      findings: [finding("prompts", "description-changed", "low")],
    });
    const server = view.get("s")!;
    const unreachable: Finding = { rule: "server-unreachable", severity: "high", server: "s" };
    view.set("s", { ...server, findings: [...server.findings, unreachable] });
    assert.equal(verdict([s], view, { allowNew: false, failOn: "high" }), 1);
  });
});
