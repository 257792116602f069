// --repeat N (issue 11, Stability): init, add and update read each server N
// times and do not pin one whose tools differ between reads, naming the tools
// and fields that changed. Through the built CLI, against a stdio server that
// counts its starts in a file and serves the count
// (tests/fixtures/servers/repeat-unstable-server.mjs).
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";
import { oneLine, pythonDigest, runCli } from "../helpers/cli.js";
import { SERVERS, writeRawDump } from "../helpers/servers.js";
import { Workspace } from "../helpers/workspace.js";

const SERVER = fileURLToPath(
  new URL("../fixtures/servers/repeat-unstable-server.mjs", import.meta.url),
);

/** The server's argv: MODE, and its start counter in the workspace. */
function command(mode: "stable" | "unstable" | "many" | "exit-later", state = "starts"): string[] {
  return [process.execPath, SERVER, mode, state];
}

/** How many times the server was started with this counter. */
function starts(ws: Workspace, state = "starts"): number {
  return existsSync(ws.path(state)) ? Number(readFileSync(ws.path(state), "utf8")) : 0;
}

/** The lock's text without its generated_at line. */
function withoutTime(text: string): string {
  assert.match(text, /"generated_at": "/);
  return text.replace(/"generated_at": "[^"]*"/, '"generated_at": ""');
}

/** A Claude Desktop config naming these stdio servers. */
function config(ws: Workspace, servers: Record<string, string[]>): string {
  const mcpServers = Object.fromEntries(
    Object.entries(servers).map(([name, [cmd, ...args]]) => [name, { command: cmd, args }]),
  );
  return ws.write("claude_desktop_config.json", JSON.stringify({ mcpServers }, null, 2));
}

const UNSTABLE_LINE =
  'contractpin: server flaky: unstable between 3 reads: tool "later" added in read 2, tool "session" (inputSchema), tool "status" (description)\n';

describe("add --repeat", () => {
  it("does not pin a server whose tools differ between reads, and names the tools and fields (exit 1)", () => {
    const ws = new Workspace();
    const r = runCli(["add", "flaky", "--repeat", "3", "--", ...command("unstable")], {
      cwd: ws.dir,
    });
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stderr, UNSTABLE_LINE);
    assert.equal(r.stdout, "");
    assert.equal(starts(ws), 3, "the server was started once per read");
    assert.ok(!existsSync(ws.path("contractpin.lock")), "no lock was written");
    assert.ok(!existsSync(ws.path("contractpin.contracts.json")), "no snapshots were written");

    // Read once (the default), the same server pins: --repeat is what caught it.
    const once = runCli(["add", "flaky", "--", ...command("unstable")], { cwd: ws.dir });
    assert.equal(once.code, 0, once.stderr);
    assert.equal(starts(ws), 4);
  });

  it("names at most five tools, server text made visible, then how many more", () => {
    const ws = new Workspace();
    const r = runCli(["add", "many", "--repeat", "2", "--", ...command("many")], { cwd: ws.dir });
    assert.equal(r.code, 1, r.stderr);
    assert.ok(oneLine(r.stderr), r.stderr);
    assert.equal(
      r.stderr,
      'contractpin: server many: unstable between 2 reads: tool "evil<U+001B>[2J<U+202E>name" (description), tool "t1" (description), tool "t2" (description), tool "t3" (description), tool "t4" (description), and 2 more\n',
    );
    assert.ok(!existsSync(ws.path("contractpin.lock")));
  });

  it("pins a stable server exactly as one read does", () => {
    const ws = new Workspace();
    const once = runCli(["add", "ok", "--lock", "one.lock", "--", ...command("stable")], {
      cwd: ws.dir,
    });
    assert.equal(once.code, 0, once.stderr);
    const thrice = runCli(
      ["add", "ok", "--lock", "three.lock", "--repeat", "3", "--", ...command("stable")],
      { cwd: ws.dir },
    );
    assert.equal(thrice.code, 0, thrice.stderr);
    assert.equal(thrice.stderr, "");
    assert.equal(thrice.stdout, once.stdout.replaceAll("one.", "three."));
    assert.equal(starts(ws), 4, "one start, then three");
    assert.equal(withoutTime(ws.read("three.lock")), withoutTime(ws.read("one.lock")));
    assert.equal(ws.read("three.contracts.json"), ws.read("one.contracts.json"));
  });

  it("says which read failed when a later read cannot be made (exit 1)", () => {
    const ws = new Workspace();
    const r = runCli(["add", "late", "--repeat", "3", "--", ...command("exit-later")], {
      cwd: ws.dir,
    });
    assert.equal(r.code, 1, r.stderr);
    assert.equal(
      r.stderr,
      "contractpin: server late (read 2 of 3): the server exited with code 3 before answering\n  | fatal: port in use (start 2)\n",
    );
    assert.equal(starts(ws), 2, "no read after the failed one");
    assert.ok(!existsSync(ws.path("contractpin.lock")));
  });

  it("gives a warning the server causes on every read once", () => {
    const ws = new Workspace();
    const r = runCli(
      ["add", "chatty", "--repeat", "3", "--", process.execPath, SERVERS.fakeStdio, "garbage"],
      { cwd: ws.dir },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(
      r.stderr,
      'contractpin: warning: server chatty: the server wrote a line that is not JSON on stdout, ignored: "Server starting... this line is not JSON"\n',
    );
  });

  it("pins a dump file read three times with the digests of the independent implementation", () => {
    const ws = new Workspace();
    const dump = writeRawDump(ws.path("tools.json"), command("stable", ws.path("dump-starts")));
    const r = runCli(["add", "dumped", "--repeat", "3", "--file", dump], { cwd: ws.dir });
    assert.equal(r.code, 0, r.stderr);
    const { transport: _t, path: _p, ...pinned } = ws.lockJson().servers["dumped"]!;
    assert.deepEqual(pinned, pythonDigest(dump));
  });
});

describe("init --repeat", () => {
  it("does not write a lock when a config's server differs between reads (exit 1)", () => {
    const ws = new Workspace();
    const from = config(ws, { flaky: command("unstable"), ok: command("stable", "ok-starts") });
    const r = runCli(["init", "--from", from, "--repeat", "3"], { cwd: ws.dir });
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stderr, `contractpin: reading ${from}\n${UNSTABLE_LINE}`);
    assert.equal(r.stdout, "");
    assert.equal(starts(ws), 3);
    assert.equal(starts(ws, "ok-starts"), 3, "the stable server was read three times too");
    assert.ok(!existsSync(ws.path("contractpin.lock")), "no lock was written");
  });

  it("pins stable servers exactly as one read does", () => {
    const ws = new Workspace();
    const from = config(ws, { ok: command("stable"), other: command("stable", "other-starts") });
    const once = runCli(["init", "--from", from, "--lock", "one.lock"], { cwd: ws.dir });
    assert.equal(once.code, 0, once.stderr);
    const thrice = runCli(["init", "--from", from, "--lock", "three.lock", "--repeat", "3"], {
      cwd: ws.dir,
    });
    assert.equal(thrice.code, 0, thrice.stderr);
    assert.equal(thrice.stdout, once.stdout.replaceAll("one.", "three."));
    assert.equal(starts(ws), 4);
    assert.equal(starts(ws, "other-starts"), 4);
    assert.equal(withoutTime(ws.read("three.lock")), withoutTime(ws.read("one.lock")));
    assert.equal(ws.read("three.contracts.json"), ws.read("one.contracts.json"));
  });
});

describe("update --repeat", () => {
  it("leaves the lock and snapshots as they were when a server differs between reads (exit 1)", () => {
    const ws = new Workspace();
    assert.equal(runCli(["add", "flaky", "--", ...command("unstable")], { cwd: ws.dir }).code, 0);
    const lock = ws.read("contractpin.lock");
    const snapshots = ws.read("contractpin.contracts.json");
    const r = runCli(["update", "--repeat", "2"], { cwd: ws.dir });
    assert.equal(r.code, 1, r.stderr);
    // Reads 2 and 3 both serve "later": only the count moved.
    assert.equal(
      r.stderr,
      'contractpin: server flaky: unstable between 2 reads: tool "session" (inputSchema), tool "status" (description)\n',
    );
    assert.equal(r.stdout, "");
    assert.equal(starts(ws), 3);
    assert.equal(ws.read("contractpin.lock"), lock);
    assert.equal(ws.read("contractpin.contracts.json"), snapshots);
  });

  it("names every unstable server when more than one is (exit 1)", () => {
    const ws = new Workspace();
    for (const [name, mode, state] of [
      ["flaky", "unstable", "starts"],
      ["many", "many", "many-starts"],
      ["ok", "stable", "ok-starts"],
    ] as const) {
      const r = runCli(["add", name, "--", ...command(mode, state)], { cwd: ws.dir });
      assert.equal(r.code, 0, r.stderr);
    }
    const lock = ws.read("contractpin.lock");
    const r = runCli(["update", "--repeat", "2"], { cwd: ws.dir });
    assert.equal(r.code, 1, r.stderr);
    assert.equal(
      r.stderr,
      [
        "contractpin: 2 servers could not be read; nothing was written",
        '  | server flaky: unstable between 2 reads: tool "session" (inputSchema), tool "status" (description)',
        '  | server many: unstable between 2 reads: tool "evil<U+001B>[2J<U+202E>name" (description), tool "t1" (description), tool "t2" (description), tool "t3" (description), tool "t4" (description), and 2 more',
        "",
      ].join("\n"),
    );
    assert.equal(ws.read("contractpin.lock"), lock);
  });

  it("re-pins a stable server as unchanged, reading it N times", () => {
    const ws = new Workspace();
    assert.equal(runCli(["add", "ok", "--", ...command("stable")], { cwd: ws.dir }).code, 0);
    const lock = ws.read("contractpin.lock");
    const once = runCli(["update"], { cwd: ws.dir });
    assert.equal(once.code, 0, once.stderr);
    const thrice = runCli(["update", "--repeat", "3"], { cwd: ws.dir });
    assert.equal(thrice.code, 0, thrice.stderr);
    assert.equal(thrice.stderr, "");
    assert.equal(thrice.stdout, once.stdout);
    assert.match(
      thrice.stdout,
      /^ok: unchanged \(2 tools\)\ncontractpin\.lock and contractpin\.contracts\.json are unchanged\n$/,
    );
    assert.equal(starts(ws), 5, "one start for add, one for update, three for update --repeat 3");
    assert.equal(ws.read("contractpin.lock"), lock);
  });
});

describe("--repeat takes a whole number from 1 to 10", () => {
  for (const value of ["0", "abc", "11", "1.5", "-1", ""]) {
    for (const cmd of ["init", "add", "update"] as const) {
      it(`${cmd} --repeat=${JSON.stringify(value)}: exit 2, one line, no server started`, () => {
        const ws = new Workspace();
        if (cmd === "update") {
          assert.equal(runCli(["add", "ok", "--", ...command("stable")], { cwd: ws.dir }).code, 0);
        }
        const before = existsSync(ws.path("contractpin.lock")) ? ws.read() : undefined;
        const args =
          cmd === "add"
            ? ["add", "ok", `--repeat=${value}`, "--", ...command("stable")]
            : cmd === "init"
              ? ["init", "--from", config(ws, { ok: command("stable") }), `--repeat=${value}`]
              : ["update", `--repeat=${value}`];
        const r = runCli(args, { cwd: ws.dir });
        assert.equal(r.code, 2, r.stderr);
        assert.equal(
          r.stderr,
          `contractpin: --repeat takes a whole number from 1 to 10, not '${value}'\n`,
        );
        assert.equal(r.stdout, "");
        assert.equal(starts(ws), cmd === "update" ? 1 : 0);
        assert.equal(existsSync(ws.path("contractpin.lock")) ? ws.read() : undefined, before);
      });
    }
  }

  it("is in the help of init, add and update", () => {
    for (const cmd of ["init", "add", "update"]) {
      const r = runCli([cmd, "--help"]);
      assert.equal(r.code, 0);
      assert.match(
        r.stdout,
        /\n {2}--repeat N {11}read each server N times, one read after another \(default 1, at\n/,
      );
    }
  });
});
