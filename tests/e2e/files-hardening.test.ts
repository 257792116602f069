// Concurrent writers of one lock, interrupts in every command that reads
// servers, and a lock that pins nothing: each through the built CLI.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";
import { atEnd } from "../helpers/cleanup.js";
import { interruptible, oneLine, runCli, startCli, type CliResult } from "../helpers/cli.js";
import { alive, ended } from "../helpers/servers.js";
import { baseTools, Workspace } from "../helpers/workspace.js";

const SLOW = fileURLToPath(new URL("../fixtures/servers/files-slow-server.mjs", import.meta.url));
const GUARD = ".contractpin.lock.lck";
const CHANGED =
  /^contractpin: contractpin\.lock: the lock changed while contractpin was reading servers \(another command changed server "[a-z]+"\); nothing was written; run the command again\n$/;

const workspaces: Workspace[] = [];
const started: ReturnType<typeof startCli>[] = [];
// atEnd, not after(): it must run before the shared clean-up removes the folders.
atEnd(() => {
  for (const run of started) if (run.child.exitCode === null) run.child.kill("SIGKILL");
  for (const ws of workspaces) {
    // A failed assertion may leave a server this file started: end it by its recorded pid.
    for (const file of readdirSync(ws.dir).filter((f) => f.endsWith(".pid"))) {
      const pid = Number(ws.read(file));
      if (pid > 0 && alive(pid)) process.kill(pid, "SIGKILL");
    }
    rmSync(ws.dir, { recursive: true, force: true });
  }
});
/** startCli, remembered so that a failed test leaves no contractpin running. */
function start(args: string[], cwd: string): ReturnType<typeof startCli> {
  const run = startCli(args, { cwd });
  started.push(run);
  return run;
}

function workspace(): Workspace {
  const ws = new Workspace();
  workspaces.push(ws);
  return ws;
}

/** The argv of a slow stdio server whose one tool is named `tool_NAME`. */
function slow(ws: Workspace, name: string, delay: string): string[] {
  return [process.execPath, SLOW, delay, ws.path(`${name}.pid`), `tool_${name}`];
}

/** A lock with file servers `names`, each pinning baseTools(). */
function lockWithFiles(ws: Workspace, ...names: string[]): void {
  ws.dump("docs.json", baseTools());
  for (const name of names) {
    const r = runCli(["add", name, "--file", "docs.json"], { cwd: ws.dir });
    assert.equal(r.code, 0, r.stderr);
  }
}

function servers(ws: Workspace): string[] {
  return Object.keys(ws.lockJson().servers).sort();
}

async function waitFor(check: () => boolean, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Waits until the slow server `name` has started (it is then being read). */
async function serverStarted(ws: Workspace, name: string): Promise<number> {
  await waitFor(() => existsSync(ws.path(`${name}.pid`)) && ws.read(`${name}.pid`) !== "");
  return Number(ws.read(`${name}.pid`));
}

/**
 * The outcomes a concurrent writer may have: it succeeded and its change is in
 * the lock, or it failed with exit 2 and the message that says to run it again.
 */
function acceptable(r: CliResult, name: string, pinned: string[]): void {
  if (r.code === 0) {
    assert.ok(pinned.includes(name), `add ${name} exited 0 but its server is not in the lock`);
  } else {
    assert.equal(r.code, 2, `add ${name}: ${r.stderr}`);
    assert.match(r.stderr, CHANGED);
    assert.ok(!pinned.includes(name), `add ${name} failed but wrote its server`);
  }
}

describe("concurrent writers of one lock", () => {
  it("three adds of slow servers started at once: every server that was added is in the lock", async () => {
    const ws = workspace();
    lockWithFiles(ws, "base");
    const names = ["a", "b", "c"];
    const runs = names.map((n) => start(["add", n, "--", ...slow(ws, n, "1000")], ws.dir));
    const results = await Promise.all(runs.map((r) => r.done));
    const pinned = servers(ws);
    results.forEach((r, i) => acceptable(r, names[i]!, pinned));
    assert.ok(results.some((r) => r.code === 0));
    assert.ok(pinned.includes("base"), "the server pinned before the race is kept");
    // Each command reported what it pinned only if it is there: the lock agrees with the exit codes.
    assert.deepEqual(pinned, ["base", ...names.filter((_, i) => results[i]!.code === 0)].sort());
    assert.deepEqual(
      readdirSync(ws.dir).filter((f) => f.startsWith(".")),
      [],
      "no guard left",
    );
    assert.equal(runCli(["verify", "--timeout", "20"], { cwd: ws.dir }).code, 0);
  });

  it("two adds into a lock that does not exist yet: both pass, and both servers are in it", async () => {
    const ws = workspace();
    const runs = ["a", "b"].map((n) => start(["add", n, "--", ...slow(ws, n, "1000")], ws.dir));
    const results = await Promise.all(runs.map((r) => r.done));
    // The second to write finds the lock the first created, and adds its own
    // server to it: each changed only its own server, so neither conflicts.
    for (const r of results) assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(servers(ws), ["a", "b"]);
    assert.equal(runCli(["verify", "--timeout", "20"], { cwd: ws.dir }).code, 0);
  });

  it("remove racing a slow add: the removed server stays removed, the added one is added", async () => {
    const ws = workspace();
    lockWithFiles(ws, "keep", "old");
    // The add's server answers only once the remove is done: under load a
    // fixed delay let the add finish first, and the race was never run.
    const add = start(["add", "new", "--", ...slow(ws, "new", `until:${ws.path("go")}`)], ws.dir);
    await serverStarted(ws, "new");
    const remove = runCli(["remove", "old"], { cwd: ws.dir });
    assert.equal(remove.code, 0, remove.stderr);
    assert.deepEqual(servers(ws), ["keep"]);
    ws.write("go", "");
    const r = await add.done;
    const pinned = servers(ws);
    acceptable(r, "new", pinned);
    assert.deepEqual(
      pinned,
      r.code === 0 ? ["keep", "new"] : ["keep"],
      "the removed server is not brought back",
    );
  });

  it("a server changed by two commands: the second fails with exit 2 and writes nothing", async () => {
    const ws = workspace();
    lockWithFiles(ws, "keep");
    // The server answers tools/list once "go" exists: the update's read ends
    // only after the remove, whatever the load.
    const argv = [...slow(ws, "s", `until:${ws.path("go")}`), ws.path("s.txt")];
    ws.write("go", "");
    const pin = runCli(["add", "s", "--", ...argv], { cwd: ws.dir });
    assert.equal(pin.code, 0, pin.stderr);
    rmSync(ws.path("s.pid"));
    rmSync(ws.path("go"));
    ws.write("s.txt", "A changed description: update re-pins it.");
    const update = start(["update", "s"], ws.dir);
    await serverStarted(ws, "s");
    assert.equal(runCli(["remove", "s"], { cwd: ws.dir }).code, 0);
    const afterRemove = ws.read();
    ws.write("go", "");
    const r = await update.done;
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.ok(oneLine(r.stderr));
    assert.match(r.stderr, CHANGED);
    assert.match(r.stderr, /changed server "s"/);
    assert.equal(ws.read(), afterRemove, "the removed server is not brought back");
  });
});

describe("the lock's write guard", () => {
  it("a guard left by a writer that was killed (its pid is gone) does not block the next run", () => {
    const ws = workspace();
    lockWithFiles(ws, "a", "b");
    const dead = spawnSync(process.execPath, ["-e", ""]).pid!;
    ws.write(GUARD, `${dead}\n`);
    const started = Date.now();
    const r = runCli(["remove", "a"], { cwd: ws.dir });
    assert.equal(r.code, 0, r.stderr);
    assert.ok(Date.now() - started < 5000);
    assert.deepEqual(servers(ws), ["b"]);
    assert.ok(!existsSync(ws.path(GUARD)));
  });

  it("a guard older than 30 s is stale even if its pid was reused by a live process", () => {
    const ws = workspace();
    lockWithFiles(ws, "a", "b");
    ws.write(GUARD, `${process.pid}\n`);
    const old = new Date(Date.now() - 120_000);
    utimesSync(ws.path(GUARD), old, old);
    const r = runCli(["remove", "a"], { cwd: ws.dir });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(servers(ws), ["b"]);
  });

  it("a live writer's guard: the next command waits for it, then writes", async () => {
    const ws = workspace();
    lockWithFiles(ws, "a", "b");
    ws.write(GUARD, `${process.pid}\n`);
    const started = Date.now();
    const remove = start(["remove", "a"], ws.dir);
    await new Promise((r) => setTimeout(r, 700));
    assert.deepEqual(servers(ws), ["a", "b"], "nothing written while the guard is held");
    rmSync(ws.path(GUARD));
    const r = await remove.done;
    assert.equal(r.code, 0, r.stderr);
    assert.ok(Date.now() - started >= 700);
    assert.deepEqual(servers(ws), ["b"]);
  });

  it("Ctrl-C while waiting for the guard: exit 2, nothing written", async () => {
    const ws = workspace();
    lockWithFiles(ws, "a", "b");
    const before = ws.read();
    ws.write(GUARD, `${process.pid}\n`);
    const remove = start(["remove", "a"], ws.dir);
    await interruptible(remove.child.pid!);
    await new Promise((r) => setTimeout(r, 500)); // waiting for the guard
    remove.child.kill("SIGINT");
    const r = await remove.done;
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stderr, "contractpin: interrupted by SIGINT\n");
    assert.equal(ws.read(), before);
    assert.ok(existsSync(ws.path(GUARD)), "another writer's guard is not removed");
  });

  it("a guard held for longer than the wait: exit 2, naming the holder and the file", () => {
    const ws = workspace();
    lockWithFiles(ws, "a", "b");
    const before = ws.read();
    ws.write(GUARD, `${process.pid}\n`);
    const r = runCli(["remove", "a"], { cwd: ws.dir });
    assert.equal(r.code, 2, r.stderr);
    assert.ok(oneLine(r.stderr));
    assert.equal(
      r.stderr,
      `contractpin: contractpin.lock: another contractpin (pid ${process.pid}) is writing the lock; nothing was written; run the command again (if no contractpin is running, delete ${ws.path(GUARD)})\n`,
    );
    assert.equal(ws.read(), before);
  });
});

describe("Ctrl-C and SIGTERM while a server is being read: exit 2", () => {
  /** A lock with a file server and a stdio server `s` that never answers tools/list. */
  function lockWithHangingServer(ws: Workspace): void {
    lockWithFiles(ws, "docs", "s");
    const lock = ws.lockJson();
    const { path: _path, ...pinned } = lock.servers["s"]!;
    lock.servers["s"] = { ...pinned, transport: "stdio", command: slow(ws, "s", "hang") };
    ws.write("contractpin.lock", JSON.stringify(lock, null, 2) + "\n");
  }

  const commands: Record<string, (ws: Workspace) => string[]> = {
    add: (ws) => ["add", "new", "--", ...slow(ws, "s", "hang")],
    update: () => ["update", "s"],
    "init --force": () => ["init", "--force"],
  };
  for (const [command, args] of Object.entries(commands)) {
    for (const signal of ["SIGINT", "SIGTERM"] as const) {
      it(`${signal} to ${command}: exit 2, the server ended, the lock unchanged`, async () => {
        const ws = workspace();
        lockWithHangingServer(ws);
        const before = ws.read();
        const run = start([...args(ws), "--timeout", "30"], ws.dir);
        const pid = await serverStarted(ws, "s");
        await new Promise((r) => setTimeout(r, 300)); // into tools/list
        assert.ok(alive(pid));
        run.child.kill(signal);
        const r = await run.done;
        assert.equal(r.code, 2, r.stdout + r.stderr);
        assert.match(r.stderr, new RegExp(`(?:^|\\n)contractpin: interrupted by ${signal}\\n$`));
        assert.doesNotMatch(
          r.stderr,
          /server s:/,
          "the interrupt is not reported as a server failure",
        );
        assert.equal(r.stdout, "");
        assert.ok(await ended(pid), "the server was ended");
        assert.equal(ws.read(), before);
      });
    }
  }
});

describe("a lock that pins no servers", () => {
  it("verify exits 2 unless --allow-empty; --server on it is an unknown server", () => {
    const ws = workspace();
    lockWithFiles(ws, "only");
    assert.equal(runCli(["remove", "only"], { cwd: ws.dir }).code, 0);
    const r = runCli(["verify"], { cwd: ws.dir });
    assert.equal(r.code, 2);
    assert.equal(
      r.stderr,
      "contractpin: contractpin.lock pins no servers, so there is nothing to verify; pin one with 'contractpin add' or 'contractpin init', or pass --allow-empty\n",
    );
    assert.equal(r.stdout, "");
    const json = runCli(["verify", "--json"], { cwd: ws.dir });
    assert.equal(json.code, 2);
    assert.equal(json.stdout, "");
    const allowed = runCli(["verify", "--allow-empty"], { cwd: ws.dir });
    assert.equal(allowed.code, 0, allowed.stderr);
    assert.match(allowed.stdout, /^\n?no servers to verify: the lock pins none\n$/);
    const allowedJson = runCli(["verify", "--allow-empty", "--json"], { cwd: ws.dir });
    assert.equal(allowedJson.code, 0);
    assert.equal(JSON.parse(allowedJson.stdout).exit_code, 0);
    const named = runCli(["verify", "--server", "x", "--allow-empty"], { cwd: ws.dir });
    assert.equal(named.code, 2);
    assert.equal(
      named.stderr,
      "contractpin: no server named 'x' in contractpin.lock; it pins no servers\n",
    );
  });

  it("init that finds no client config says which files it looked for", () => {
    const ws = workspace();
    const home = mkdtempSync(join(tmpdir(), "contractpin-home-"));
    try {
      const env = { HOME: home, XDG_CONFIG_HOME: undefined, CODEX_HOME: undefined };
      const r = runCli(["init"], { cwd: ws.dir, env });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(
        r.stderr,
        "contractpin: no MCP client config found (looked for .mcp.json, .vscode/mcp.json, .cursor/mcp.json, .zed/settings.json, .gemini/settings.json, .continue/mcpServers/*.yaml: project configs only; --user adds the user-level ones); nothing to pin\n",
      );
      assert.match(r.stdout, /^created contractpin\.lock with no servers/);
      const user = runCli(["init", "--user", "--force"], { cwd: ws.dir, env });
      assert.equal(user.code, 0, user.stderr);
      assert.equal(
        user.stderr,
        "contractpin: no MCP client config found (looked for .mcp.json, .vscode/mcp.json, .cursor/mcp.json, .zed/settings.json, .gemini/settings.json, .continue/mcpServers/*.yaml, ~/.config/Claude/claude_desktop_config.json, ~/.claude.json, ~/.cursor/mcp.json, ~/.codeium/windsurf/mcp_config.json, ~/.codex/config.toml, ~/.gemini/settings.json, ~/.config/zed/settings.json, ~/.continue/config.yaml, ~/.config/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json: project and user-level configs); nothing to pin\n",
      );
      lockWithFiles(ws, "docs");
      const repin = runCli(["init", "--force"], { cwd: ws.dir, env });
      assert.equal(repin.code, 0, repin.stderr);
      assert.equal(repin.stderr, "", "re-pinning the lock's servers is not 'nothing found'");
      assert.equal(
        repin.stdout,
        "docs: unchanged (2 tools)\ncontractpin.lock and contractpin.contracts.json are unchanged\n",
      );
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
