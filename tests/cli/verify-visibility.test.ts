// Issue 36: `_meta.ui.visibility` (MCP Apps) decides whether the model sees a
// tool; it is pinned beside the tool digest (SPEC.md 13). Through the built
// CLI with a dump (`--file`): add records it (format 3, the digests Python's
// generator gives), a flip from ["app"] to ["model","app"] fails verify (exit
// 1) naming the field in every report format, and a lock written before the
// pin existed shows the tool drifted once, until update records it.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { pythonDigest, runCli } from "../helpers/cli.js";
import { Workspace, type Tool } from "../helpers/workspace.js";

/** An app tool of the MCP Apps extension, and a plain tool. */
function tools(visibility: unknown): Tool[] {
  return [
    {
      name: "show_chart",
      description: "Draw a chart in the app.",
      inputSchema: { type: "object", properties: { data: { type: "array" } } },
      _meta: { ui: { resourceUri: "ui://charts/view", visibility } },
    },
    { name: "lookup", description: "Look a word up.", inputSchema: { type: "object" } },
  ];
}

function pinned(): Workspace {
  const ws = new Workspace();
  ws.dump("charts.json", tools(["app"]));
  const r = runCli(["add", "charts", "--file", "charts.json"], { cwd: ws.dir });
  assert.equal(r.code, 0, r.stderr);
  return ws;
}

function verify(ws: Workspace, ...args: string[]) {
  return runCli(["verify", ...args], { cwd: ws.dir });
}

describe("verify: a tool's _meta.ui.visibility", () => {
  it("add records it in a format 3 lock, as the Python generator computes it", () => {
    const ws = pinned();
    const lock = ws.lockJson();
    assert.equal(lock["contractpin"], "3");
    const { transport: _t, path: _p, ...digests } = lock.servers["charts"]!;
    assert.deepEqual(digests, pythonDigest(ws.path("charts.json")));
    const chart = (digests["tools"] as Record<string, Record<string, unknown>>)["show_chart"]!;
    assert.match(String(chart["visibility"]), /^sha256:[0-9a-f]{64}$/);
    assert.equal(verify(ws).code, 0);
  });

  it('a flip from ["app"] to ["model","app"] is drift: exit 1, the field named in text and JSON', () => {
    const ws = pinned();
    ws.dump("charts.json", tools(["model", "app"]));
    const text = verify(ws);
    assert.equal(text.code, 1, text.stderr);
    assert.equal(text.stderr, "");
    assert.match(text.stdout, /^ {2}DRIFTED {4}show_chart {2}changed: _meta\.ui\.visibility$/m);
    assert.match(text.stdout, /^ {4}\[high\] tool-visibility-changed at _meta\/ui\/visibility$/m);
    assert.doesNotMatch(text.stdout, /lookup/);
    const json = verify(ws, "--json");
    assert.equal(json.code, 1);
    const report = JSON.parse(json.stdout);
    const tool = report.servers[0].tools.find((t: { name: string }) => t.name === "show_chart");
    assert.equal(tool.status, "drifted");
    assert.deepEqual(tool.changed_fields, ["_meta.ui.visibility"]);
    assert.equal(tool.fields_confirmed, true);
    assert.equal(tool.pinned, tool.live);
    assert.deepEqual(
      tool.findings.map((f: { rule: string; pointer: string }) => [f.rule, f.pointer]),
      [["tool-visibility-changed", "/_meta/ui/visibility"]],
    );
  });

  it("the CI formats carry the finding: GitHub, SARIF, Markdown", () => {
    const ws = pinned();
    ws.dump("charts.json", tools(["model", "app"]));
    const github = verify(ws, "--format", "github");
    assert.equal(github.code, 1);
    assert.match(github.stdout, /^::error .*title=contractpin high%3A tool-visibility-changed::/m);
    const sarif = verify(ws, "--format", "sarif");
    assert.equal(sarif.code, 1);
    const results = JSON.parse(sarif.stdout).runs[0].results as { ruleId: string }[];
    assert.deepEqual(
      results.map((r) => r.ruleId),
      ["tool-visibility-changed"],
    );
    const markdown = verify(ws, "--format", "markdown");
    assert.equal(markdown.code, 1);
    assert.match(markdown.stdout, /tool-visibility-changed/);
  });

  it("removed, and an app tool made model-visible by dropping it, is drift too", () => {
    const ws = pinned();
    const served = tools(["app"]);
    delete (served[0]!["_meta"] as { ui: Record<string, unknown> }).ui["visibility"];
    ws.dump("charts.json", served);
    const r = verify(ws);
    assert.equal(r.code, 1);
    assert.match(r.stdout, /changed: _meta\.ui\.visibility$/m);
  });

  it("a lock written before the pin shows the tool drifted once; update records it", () => {
    const ws = pinned();
    // The lock as a release without the pin wrote it: no member, format 1.
    const lock = ws.lockJson();
    const chart = (lock.servers["charts"]!["tools"] as Record<string, Record<string, unknown>>)[
      "show_chart"
    ]!;
    delete chart["visibility"];
    lock["contractpin"] = "1";
    ws.write("contractpin.lock", JSON.stringify(lock, null, 2) + "\n");
    const before = verify(ws);
    assert.equal(before.code, 1);
    assert.match(before.stdout, /changed: _meta\.ui\.visibility$/m);
    const update = runCli(["update"], { cwd: ws.dir });
    assert.equal(update.code, 0, update.stderr);
    assert.equal(ws.lockJson()["contractpin"], "3");
    assert.equal(verify(ws).code, 0);
  });

  it("diff of two locks compares it: the lock that flips it differs, naming the field", () => {
    const ws = pinned();
    ws.write("old.lock", ws.read());
    ws.dump("charts.json", tools(["model", "app"]));
    const update = runCli(["update"], { cwd: ws.dir });
    assert.equal(update.code, 0, update.stderr);
    const r = runCli(["diff", "old.lock", "contractpin.lock"], { cwd: ws.dir });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stdout, /show_chart {2}changed: _meta\.ui\.visibility$/m);
    assert.match(r.stdout, /\[high\] tool-visibility-changed at _meta\/ui\/visibility$/m);
    assert.equal(runCli(["diff", "old.lock", "old.lock"], { cwd: ws.dir }).code, 0);
  });

  it("with the contract moved too and no snapshot: both tool-drifted and tool-visibility-changed", () => {
    const ws = new Workspace();
    ws.dump("charts.json", tools(["app"]));
    const add = runCli(["add", "charts", "--file", "charts.json", "--no-snapshot"], {
      cwd: ws.dir,
    });
    assert.equal(add.code, 0, add.stderr);
    const served = tools(["model"]);
    served[0]!["description"] = "Draw any chart.";
    ws.dump("charts.json", served);
    const text = verify(ws);
    assert.equal(text.code, 1);
    assert.match(text.stdout, /show_chart {2}changed: _meta\.ui\.visibility, fields unknown/);
    const sarif = JSON.parse(verify(ws, "--format", "sarif").stdout);
    assert.deepEqual((sarif.runs[0].results as { ruleId: string }[]).map((r) => r.ruleId).sort(), [
      "tool-drifted",
      "tool-visibility-changed",
    ]);
  });

  it("title, icons and other _meta stay display members: no drift", () => {
    const ws = pinned();
    const served = tools(["app"]);
    Object.assign(served[0]!, { title: "Chart", icons: [{ src: "https://x.example/i.png" }] });
    (served[0]!["_meta"] as { ui: Record<string, unknown> }).ui["resourceUri"] = "ui://other";
    ws.dump("charts.json", served);
    assert.equal(verify(ws).code, 0);
  });
});
