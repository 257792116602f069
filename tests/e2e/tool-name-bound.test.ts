// A tool name is at most 1,024 characters (code points; SPEC.md section 1):
// eight times the MCP recommendation of 128, so no real server is refused,
// while a name of megabytes cannot be pinned. A longer name fails its server
// (exit 1 for add and verify, exit 2 for `digest`, whose input is the user's),
// and the Python reference implementation refuses it too.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { after, describe, it } from "node:test";
import { contractOf } from "../../src/core/contract/contract.js";
import { MAX_TOOL_NAME_CHARS } from "../../src/core/limits.js";
import { throwsCode } from "../helpers/assert-code.js";
import { oneLine, pythonDigest, runCli } from "../helpers/cli.js";
import { baseTools, Workspace } from "../helpers/workspace.js";

const TOO_LONG =
  /tool 2 has a name longer than 1024 characters, the most contractpin accepts \(MCP recommends at most 128\)/;

describe("contractOf: the tool name bound", () => {
  it("is 1,024", () => assert.equal(MAX_TOOL_NAME_CHARS, 1024));

  const ok: [string, string][] = [
    ["the empty name", ""],
    ["1,024 ASCII characters", "a".repeat(1024)],
    ["1,024 astral characters (2,048 UTF-16 units)", "😀".repeat(1024)],
    ["1,023 two-unit characters and one ASCII", "😀".repeat(1023) + "a"],
  ];
  for (const [what, name] of ok) {
    it(`accepts ${what}`, () => assert.equal(contractOf({ name }).name, name));
  }

  const refused: [string, string][] = [
    ["1,025 ASCII characters", "a".repeat(1025)],
    ["1,025 astral characters", "😀".repeat(1025)],
    ["1,024 astral characters and one ASCII", "😀".repeat(1024) + "a"],
    ["10 million characters", "n".repeat(10_000_000)],
  ];
  for (const [what, name] of refused) {
    it(`refuses ${what}, naming the tool but not quoting the name`, () => {
      const message = throwsCode(() => contractOf({ name }, "tool 2"), "TOOL_NAME_INVALID");
      assert.match(message, TOO_LONG);
      assert.ok(message.length < 200);
    });
  }
});

describe("the CLI and the Python reference refuse a tool name past the bound", () => {
  const workspaces: Workspace[] = [];
  after(() => {
    for (const ws of workspaces) rmSync(ws.dir, { recursive: true, force: true });
  });
  const workspace = () => {
    const ws = new Workspace();
    workspaces.push(ws);
    return ws;
  };
  const withName = (name: string) => [...baseTools(), { name, description: "long" }];

  it("add: a name of 1,024 astral characters is pinned, with the reference digests", () => {
    const ws = workspace();
    const path = ws.dump("docs.json", withName("😀".repeat(1024)));
    const r = runCli(["add", "docs", "--file", "docs.json"], { cwd: ws.dir });
    assert.equal(r.code, 0, r.stderr);
    const { transport: _t, path: _p, ...digests } = ws.lockJson().servers["docs"]!;
    assert.deepEqual(digests, pythonDigest(path));
  });

  for (const [what, name] of [
    ["1,025 characters", "x".repeat(1025)],
    ["10 million characters", "x".repeat(10_000_000)],
  ] as const) {
    it(`add of a dump with a name of ${what}: exit 1, one line, no lock`, () => {
      const ws = workspace();
      ws.dump("docs.json", withName(name));
      const r = runCli(["add", "docs", "--file", "docs.json"], { cwd: ws.dir });
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, /^contractpin: server docs: /);
      assert.match(r.stderr, TOO_LONG);
      assert.ok(oneLine(r.stderr), r.stderr);
      assert.ok(r.stderr.length < 300);
      assert.throws(() => ws.read());
    });
  }

  it("verify of a server that now serves a name of 1,025 characters: UNREACHABLE, exit 1", () => {
    const ws = workspace();
    ws.dump("docs.json", baseTools());
    assert.equal(runCli(["add", "docs", "--file", "docs.json"], { cwd: ws.dir }).code, 0);
    ws.dump("docs.json", withName("y".repeat(1025)));
    const r = runCli(["verify"], { cwd: ws.dir });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stdout, /^docs {2}UNREACHABLE {2}/m);
    assert.match(r.stdout, TOO_LONG);
  });

  it("digest of the dump: exit 2, one line; the Python reference refuses it as TOOL_NAME_INVALID", () => {
    const ws = workspace();
    const path = ws.dump("docs.json", withName("z".repeat(1025)));
    const r = runCli(["digest", path]);
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stdout, "");
    assert.match(r.stderr, /^contractpin: /);
    assert.match(r.stderr, TOO_LONG);
    assert.ok(oneLine(r.stderr), r.stderr);
    const py = spawnSync(
      "python3",
      [fileURLToPath(new URL("../make_vectors.py", import.meta.url)), "--digest-dump", path],
      { encoding: "utf8" },
    );
    assert.notEqual(py.status, 0);
    assert.match(py.stderr, /TOOL_NAME_INVALID/);
  });
});
