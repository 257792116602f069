// Ctrl-C or SIGTERM while verify reads a server is exit 2, "could not run":
// no report may then claim a verdict. Before, the interrupted server was
// reported unreachable, and stdout, --output, --json-file (`"exit_code": 1`)
// and the job summary all said FAIL while the process exited 2.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { runCli, startCli } from "../helpers/cli.js";
import { Workspace } from "../helpers/workspace.js";

const SERVER = fileURLToPath(new URL("../fixtures/servers/mode-file-server.mjs", import.meta.url));

describe("an interrupted verify", () => {
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    it(`${signal}: exit 2 and one line; no report on stdout, in --output, --json-file or the job summary`, async () => {
      const ws = new Workspace();
      const add = runCli(["add", "slow", "--", process.execPath, SERVER], { cwd: ws.dir });
      assert.equal(add.code, 0, add.stderr);
      ws.write("mode.txt", "hang");
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
      assert.match(r.stderr, new RegExp(`(?:^|\\n)contractpin: interrupted by ${signal}\\n$`));
      // The progress does not call the server it stopped unreachable.
      assert.doesNotMatch(r.stderr, /UNREACHABLE/);
      assert.ok(!existsSync(ws.path("r.txt")));
      assert.ok(!existsSync(ws.path("r.json")));
      assert.equal(ws.read("summary.md"), "## an earlier step\n");
    });
  }
});
