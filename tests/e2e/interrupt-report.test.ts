// Ctrl-C or SIGTERM while verify reads a server is exit 2, "could not run":
// no report may then claim a verdict. Before, the interrupted server was
// reported unreachable, and stdout, --output, --json-file (`"exit_code": 1`)
// and the job summary all said FAIL while the process exited 2.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { describe, it } from "node:test";
import { runCli, startCli } from "../helpers/cli.js";
import { Workspace } from "../helpers/workspace.js";

// A stdio server that answers tools/list, or (with hang.txt beside it) never does.
const SERVER = `
import { existsSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";
const hang = existsSync(new URL("./hang.txt", import.meta.url));
const send = (o) => process.stdout.write(JSON.stringify(o) + "\\n");
createInterface({ input: process.stdin }).on("line", (line) => {
  const m = JSON.parse(line);
  if (m.id === undefined) return;
  if (m.method === "initialize")
    return send({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: m.params.protocolVersion,
      capabilities: { tools: {} }, serverInfo: { name: "slow", version: "1" } } });
  if (m.method !== "tools/list")
    return send({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "no such method" } });
  if (hang) return writeFileSync(new URL("./asked.txt", import.meta.url), "");
  send({ jsonrpc: "2.0", id: m.id, result: { tools: [{ name: "a" }] } });
});
`;

describe("an interrupted verify", () => {
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    it(`${signal}: exit 2 and one line; no report on stdout, in --output, --json-file or the job summary`, async () => {
      const ws = new Workspace();
      ws.write("server.mjs", SERVER);
      const add = runCli(["add", "slow", "--", process.execPath, "server.mjs"], { cwd: ws.dir });
      assert.equal(add.code, 0, add.stderr);
      ws.write("hang.txt", "");
      const summary = ws.write("summary.md", "## an earlier step\n");
      const run = startCli(
        ["verify", "--timeout", "30", "--output", "r.txt", "--json-file", "r.json"],
        { cwd: ws.dir, env: { GITHUB_STEP_SUMMARY: summary } },
      );
      const end = Date.now() + 20_000;
      while (!existsSync(ws.path("asked.txt"))) {
        assert.ok(Date.now() < end, "the server was never asked for its tools");
        await new Promise((r) => setTimeout(r, 50));
      }
      run.child.kill(signal);
      const r = await run.done;
      assert.equal(r.code, 2, r.stdout + r.stderr);
      assert.equal(r.stdout, "");
      assert.match(r.stderr, new RegExp(`\\ncontractpin: interrupted by ${signal}\\n$`));
      assert.ok(!existsSync(ws.path("r.txt")));
      assert.ok(!existsSync(ws.path("r.json")));
      assert.equal(ws.read("summary.md"), "## an earlier step\n");
    });
  }
});
