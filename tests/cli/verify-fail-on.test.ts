// verify --fail-on SEVERITY (issue 23): an opt-in like --allow-new. A drift
// whose findings are all below the threshold is reported and exits 0; the
// default stays spec 6 (any drift is exit 1); an unreachable server, an added
// tool (without --allow-new) and a drift no snapshot can classify still fail.
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { describe, it } from "node:test";
import { oneLine, runCli } from "../helpers/cli.js";
import { baseTools, Workspace, type Tool } from "../helpers/workspace.js";

/** A workspace with server docs pinned from baseTools(), then served as `edit` makes them. */
function drifted(edit: (tools: Tool[]) => Tool[], ...addFlags: string[]): Workspace {
  const ws = new Workspace();
  ws.dump("docs.json", baseTools());
  assert.equal(
    runCli(["add", "docs", "--file", "docs.json", ...addFlags], { cwd: ws.dir }).code,
    0,
  );
  ws.dump("docs.json", edit(baseTools()));
  return ws;
}

const verify = (ws: Workspace, ...args: string[]) => runCli(["verify", ...args], { cwd: ws.dir });

// Only the wording of a description: description-changed, low.
const reworded = (tools: Tool[]) =>
  tools.map((t) => (t.name === "fetch_page" ? { ...t, description: "Fetch a page by id." } : t));
// A new argument on a schema that lists its properties: input-property-added, high.
const widened = (tools: Tool[]) =>
  tools.map((t) =>
    t.name === "fetch_page"
      ? {
          ...t,
          inputSchema: {
            type: "object",
            properties: { id: { type: "string" }, notes: { type: "string" } },
            required: ["id"],
          },
        }
      : t,
  );

describe("verify --fail-on", () => {
  it("a drift below the threshold is reported and passes; the default still fails it", () => {
    const ws = drifted(reworded);
    assert.equal(verify(ws).code, 1);
    const r = verify(ws, "--fail-on", "medium");
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /\[low\] description-changed/);
    assert.match(r.stdout, /^contractpin: PASS with --fail-on medium: every finding/m);
    assert.equal(verify(ws, "--fail-on", "low").code, 1);
    const json = verify(ws, "--fail-on", "medium", "--format", "json");
    assert.equal(json.code, 0);
    assert.equal(JSON.parse(json.stdout).exit_code, 0);
    assert.match(json.stderr, /PASS with --fail-on medium/);
  });

  it("a finding at or above the threshold fails", () => {
    const ws = drifted(widened);
    assert.equal(verify(ws, "--fail-on", "high").code, 1);
    assert.equal(verify(ws, "--fail-on", "critical").code, 0);
  });

  it("an added tool still fails unless --allow-new", () => {
    const ws = drifted((tools) => [...tools, { name: "ping", inputSchema: { type: "object" } }]);
    assert.equal(verify(ws, "--fail-on", "critical").code, 1);
    assert.equal(verify(ws, "--fail-on", "critical", "--allow-new").code, 0);
  });

  it("a drift with no snapshot to classify it still fails", () => {
    const ws = drifted(reworded, "--no-snapshot");
    const r = verify(ws, "--fail-on", "critical");
    assert.equal(r.code, 1, r.stdout);
    assert.match(
      r.stdout,
      /DRIFTED +fetch_page +changed: fields unknown \(unconfirmed by any snapshot: description\)/,
    );
  });

  it("a server that could not be read still fails", () => {
    const ws = drifted((tools) => tools);
    rmSync(ws.path("docs.json"));
    assert.equal(verify(ws, "--fail-on", "critical").code, 1);
  });

  it("a threshold that names no severity is exit 2, one line", () => {
    const ws = drifted(reworded);
    const r = verify(ws, "--fail-on", "HIGH");
    assert.equal(r.code, 2);
    assert.ok(oneLine(r.stderr), r.stderr);
  });
});
