// Text-mode `verify` of a server with 130,000 tools: the text renderer used to
// spread every tool into one call (`lines.push(...)`, `Math.max(...)`), which
// overflows the stack past about 100,000 arguments, while `--json` worked.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { CLI, type CliResult } from "../helpers/cli.js";
import { Workspace, type Tool } from "../helpers/workspace.js";

const COUNT = 130_000;

/** Runs the built CLI in `cwd`; its report (a line per tool) is a few MB. */
function runCli(args: string[], { cwd }: { cwd: string }): CliResult {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    cwd,
    env: { ...process.env, NO_COLOR: undefined, FORCE_COLOR: undefined },
    encoding: "utf8",
    timeout: 120_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.error) throw r.error;
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const tools = (): Tool[] =>
  Array.from({ length: COUNT }, (_, i) => ({
    name: `t${i}`,
    inputSchema: { type: "object" },
  }));

describe("verify of a server with 130,000 tools, in text mode", () => {
  let ws: Workspace;
  before(() => {
    ws = new Workspace();
    ws.write("many.json", JSON.stringify({ tools: tools() }));
    const r = runCli(["add", "many", "--file", "many.json"], { cwd: ws.dir });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /130000 tools/);
  });
  after(() => rmSync(ws.dir, { recursive: true, force: true }));

  it("a match: exit 0, one line for the server (quiet, issue 11), the summary", () => {
    const r = runCli(["verify"], { cwd: ws.dir });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, "");
    assert.equal(r.stdout, "many  ok  (130000 pinned tools)\n\nOK: 1 server matches the lock\n");
  });

  it("a match with --verbose: exit 0, a line per tool, the summary", () => {
    const r = runCli(["verify", "--verbose"], { cwd: ws.dir });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, "");
    assert.match(r.stdout, /^many {2}ok {2}\(130000 pinned tools\)$/m);
    assert.match(r.stdout, /^ {2}unchanged {2}t129999$/m);
    assert.equal(r.stdout.match(/^ {2}unchanged {2}/gm)?.length, COUNT);
    assert.match(r.stdout, /\nOK: 1 server matches the lock\n$/);
  });

  it("drift in one tool: exit 1, that tool DRIFTED with its field", () => {
    const drifted = tools();
    drifted[4321]!.description = "now described";
    ws.write("many.json", JSON.stringify({ tools: drifted }));
    try {
      const r = runCli(["verify", "--verbose"], { cwd: ws.dir });
      assert.equal(r.code, 1, r.stderr);
      assert.equal(r.stderr, "");
      assert.match(r.stdout, /^many {2}DRIFT {2}\(130000 pinned tools\)$/m);
      assert.match(r.stdout, /^ {2}DRIFTED {4}t4321 +changed: description$/m);
      assert.equal(r.stdout.match(/^ {2}unchanged {2}/gm)?.length, COUNT - 1);
      // The snapshot shows the change.
      assert.match(
        r.stdout,
        /^ {4}\[low\] description-changed at description\n {6}description: null -> "now described"$/m,
      );
      assert.match(
        r.stdout,
        /\nFAIL: 1 drifted of 1 server \(tools: 1 drifted\)\nto accept the change after reviewing it: contractpin update many\n$/,
      );
    } finally {
      ws.write("many.json", JSON.stringify({ tools: tools() }));
    }
  });
});
