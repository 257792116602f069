// Ctrl-C, SIGTERM or SIGHUP while verify reads a server is exit 2, "could not run":
// no report may then claim a verdict. Before, the interrupted server was
// reported unreachable, and stdout, --output, --json-file (`"exit_code": 1`)
// and the job summary all said FAIL while the process exited 2.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { runCli, startCli } from "../helpers/cli.js";
import { ended, SERVERS } from "../helpers/servers.js";
import { Workspace } from "../helpers/workspace.js";

const SERVER = fileURLToPath(new URL("../fixtures/servers/mode-file-server.mjs", import.meta.url));

describe("an interrupted verify", () => {
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
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

describe("an interrupt delivered twice, as through npx", () => {
  // A terminal's Ctrl-C signals the whole process group; npm exec (npx) and
  // npm run forward the SIGINT they got to their child as well, which is
  // contractpin itself when their shell exec'd it. That repeat is the same
  // interrupt: contractpin still ends its servers and says why, exit 2. The
  // server ignores SIGTERM, so that ending it takes a second (then SIGKILL):
  // the repeat arrives while contractpin is ending it.
  /** A verify of a server that ignores SIGTERM and hangs, once it has started: the run and its pid. */
  async function hangingVerify(): Promise<{ run: ReturnType<typeof startCli>; pid: number }> {
    const ws = new Workspace();
    ws.dump(
      "tools.json",
      JSON.parse(readFileSync(new URL("../fixtures/servers/tools.json", import.meta.url), "utf8")),
    );
    assert.equal(
      runCli(["add", "fake", "--tools-only", "--file", "tools.json"], { cwd: ws.dir }).code,
      0,
    );
    const lock = ws.lockJson();
    const { path: _path, ...pinned } = lock.servers["fake"]!;
    lock.servers["fake"] = {
      ...pinned,
      transport: "stdio",
      command: [process.execPath, SERVERS.fakeStdio, "ignore-sigterm+hang", ws.path("state")],
    };
    ws.write("contractpin.lock", JSON.stringify(lock, null, 2));
    const run = startCli(["verify", "--timeout", "30"], { cwd: ws.dir });
    const end = Date.now() + 20_000;
    while (!existsSync(ws.path("state.pid"))) {
      assert.ok(Date.now() < end, "the server never started");
      await new Promise((r) => setTimeout(r, 50));
    }
    await new Promise((r) => setTimeout(r, 300));
    return { run, pid: Number(ws.read("state.pid")) };
  }

  it("SIGINT, and SIGINT again 100 ms later: exit 2, one line, no UNREACHABLE, the server ended", async () => {
    const { run, pid } = await hangingVerify();
    run.child.kill("SIGINT");
    await new Promise((r) => setTimeout(r, 100));
    run.child.kill("SIGINT");
    const r = await run.done;
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.equal(r.stdout, "");
    assert.equal(r.stderr, "contractpin: interrupted by SIGINT\n");
    assert.ok(await ended(pid), "the server was ended");
  });

  it("a second SIGINT (after 500 ms) exits at once, and still leaves no server behind", async () => {
    const { run, pid } = await hangingVerify();
    run.child.kill("SIGINT");
    // The server ignores the SIGTERM sent 300 ms after its stdin closed: it is being ended.
    await new Promise((r) => setTimeout(r, 700));
    run.child.kill("SIGINT");
    const r = await run.done;
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.equal(r.stderr, "contractpin: interrupted again by SIGINT: exiting at once\n");
    assert.ok(await ended(pid), "the server outlived contractpin");
  });
});
