// A re-pin says when a server's launch line changed (issue 35): `init --force`
// from a client config whose entry now runs another command used to say
// "unchanged (9 tools)", since the tools were the same. With the real
// server-memory from npm.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { runCli } from "../helpers/cli.js";
import { SERVERS } from "../helpers/servers.js";
import { Workspace } from "../helpers/workspace.js";

/** A project whose .mcp.json runs server-memory with `args`. */
function writeConfig(ws: Workspace, args: string[]): void {
  ws.write(
    ".mcp.json",
    JSON.stringify({
      mcpServers: {
        memory: {
          command: process.execPath,
          args,
          env: { MEMORY_FILE_PATH: ws.path("memory.jsonl") },
        },
      },
    }),
  );
}

describe("a re-pin whose launch line changed", () => {
  it("init --force names the changed command, whole and marked, though the tools are unchanged", () => {
    const ws = new Workspace();
    writeConfig(ws, [SERVERS.memory]);
    const first = runCli(["init"], { cwd: ws.dir });
    assert.equal(first.code, 0, first.stderr);
    // The approved entry now runs node with another option: the same tools, another launch.
    writeConfig(ws, ["--no-warnings", SERVERS.memory]);
    const init = runCli(["init", "--force"], { cwd: ws.dir });
    assert.equal(init.code, 0, init.stderr);
    const node = JSON.stringify(process.execPath).slice(1, -1);
    const memory = JSON.stringify(SERVERS.memory).slice(1, -1);
    const lines = init.stdout.split("\n");
    assert.deepEqual(lines.slice(0, 2), [
      "memory: launch line changed; its contract is unchanged (9 tools)",
      `  [high] server-source-changed at command: ["${node}","${memory}"] -> ["${node}",{+"--no-warnings",+}"${memory}"]`,
    ]);
    assert.doesNotMatch(init.stdout, /^memory: unchanged/m);
    assert.equal((ws.lockJson().servers["memory"]!["command"] as string[])[1], "--no-warnings");

    // --json carries the finding with both values whole.
    writeConfig(ws, [SERVERS.memory]);
    const json = runCli(["init", "--force", "--json"], { cwd: ws.dir });
    assert.equal(json.code, 0, json.stderr);
    const report = JSON.parse(json.stdout) as {
      servers: { name: string; findings: Record<string, unknown>[] }[];
    };
    assert.deepEqual(report.servers[0]!.findings[0], {
      rule: "server-source-changed",
      severity: "high",
      pointer: "/command",
      before: [process.execPath, "--no-warnings", SERVERS.memory],
      after: [process.execPath, SERVERS.memory],
    });

    // The same launch line again: unchanged, nothing to say.
    const again = runCli(["init", "--force"], { cwd: ws.dir });
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.stdout.split("\n")[0], "memory: unchanged (9 tools)");
  });
});
