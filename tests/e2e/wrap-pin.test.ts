// A wrapped config never becomes the pin (issue 32, item 7): after `wrap`,
// `init --force` (the documented way to accept a change) reads each wrapped
// entry as the server it wraps, never as the guard that runs it; and a lock
// that pins a guard anyway (written by an older init) makes the guard refuse
// with one line, instead of starting a guard of itself without end. Through
// the built CLI, with a real server from npm.
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { describe, it } from "node:test";
import { oneLine, runCli } from "../helpers/cli.js";
import { SERVERS } from "../helpers/servers.js";
import { Workspace } from "../helpers/workspace.js";

/** A project whose .mcp.json runs the memory server from npm, pinned with init. */
function project(): { ws: Workspace; lock: Record<string, unknown> } {
  const ws = new Workspace();
  ws.write(
    ".mcp.json",
    `${JSON.stringify(
      {
        mcpServers: {
          memory: {
            command: process.execPath,
            args: [SERVERS.memory],
            env: { MEMORY_FILE_PATH: ws.path("memory.jsonl") },
          },
        },
      },
      null,
      2,
    )}\n`,
  );
  const init = runCli(["init"], { cwd: ws.dir });
  assert.equal(init.code, 0, init.stderr);
  return { ws, lock: JSON.parse(ws.read()) };
}

type Entry = { command: string; args: string[]; env: Record<string, string> };

function wrap(ws: Workspace): Entry {
  const wrap = runCli(["wrap"], { cwd: ws.dir });
  assert.equal(wrap.code, 0, wrap.stderr);
  const entry = (JSON.parse(ws.read(".mcp.json")) as { mcpServers: Record<string, Entry> })
    .mcpServers["memory"]!;
  assert.deepEqual(entry.args.slice(-4, -2), ["guard", "memory"], "wrapped");
  return entry;
}

describe("a wrapped config never becomes the pin", () => {
  it("wrap, then init --force, then verify: the lock pins the server itself, and verify passes", () => {
    const { ws, lock } = project();
    wrap(ws);
    const { servers } = lock as { servers: Record<string, Record<string, unknown>> };
    const init = runCli(["init", "--force"], { cwd: ws.dir });
    assert.equal(init.code, 0, init.stderr);
    // Read from the config, not kept from the lock nor skipped.
    assert.doesNotMatch(init.stderr, /keeping|skipped/, init.stderr);
    // The same definition and digests as before the wrap: the npm server, not the guard.
    assert.deepEqual(JSON.parse(ws.read()).servers, servers);
    // A fresh init (no lock to keep a server from) pins it from the wrapped entry too.
    rmSync(ws.path("contractpin.lock"));
    const fresh = runCli(["init"], { cwd: ws.dir });
    assert.equal(fresh.code, 0, fresh.stderr);
    const now = JSON.parse(ws.read()) as { servers: Record<string, Record<string, unknown>> };
    assert.deepEqual(now.servers, servers);
    assert.deepEqual(now.servers["memory"]!["command"], [process.execPath, SERVERS.memory]);
    const verify = runCli(["verify"], { cwd: ws.dir });
    assert.equal(verify.code, 0, verify.stdout + verify.stderr);
    assert.match(verify.stdout, /^OK: 1 server matches the lock$/m);
  });

  it("a lock that pins the guard (as an older init wrote it): the guard refuses with one line, exit 2; verify fails at once (exit 1)", () => {
    const { ws, lock } = project();
    const entry = wrap(ws);
    const servers = (lock as { servers: Record<string, Record<string, unknown>> }).servers;
    servers["memory"] = {
      ...servers["memory"],
      command: [entry.command, ...entry.args],
      env: entry.env,
    };
    ws.write("contractpin.lock", `${JSON.stringify(lock, null, 2)}\n`);
    const refusal =
      /server memory: the lock pins a contractpin guard as the server, and a guard never starts a guard; re-pin the server it guards with 'contractpin init --force'/;
    const guard = runCli(["guard", "memory"], { cwd: ws.dir });
    assert.equal(guard.code, 2, guard.stderr);
    assert.ok(oneLine(guard.stderr), guard.stderr);
    assert.match(guard.stderr, refusal);
    const verify = runCli(["verify", "--timeout", "20"], { cwd: ws.dir });
    assert.equal(verify.code, 1, verify.stdout + verify.stderr);
    assert.match(verify.stdout, /^memory {2}UNREACHABLE {2}.*a guard never starts a guard/m);
    assert.doesNotMatch(verify.stdout, /timed out|downloading/);
    // The way out the line names.
    const init = runCli(["init", "--force"], { cwd: ws.dir });
    assert.equal(init.code, 0, init.stderr);
    assert.equal(runCli(["verify"], { cwd: ws.dir }).code, 0);
  });

  it("a config entry that runs contractpin guard by hand (no wrapped entry kept) is skipped by init, with the reason", () => {
    const ws = new Workspace();
    ws.write(
      ".mcp.json",
      JSON.stringify({
        mcpServers: {
          memory: { command: process.execPath, args: [SERVERS.memory] },
          guarded: { command: "npx", args: ["--no", "contractpin", "guard", "memory"] },
        },
      }),
    );
    const init = runCli(["init"], { cwd: ws.dir });
    assert.equal(init.code, 0, init.stderr);
    assert.match(
      init.stderr,
      /^contractpin: skipped guarded \(\S+\.mcp\.json\): it runs contractpin guard, not a server: a guard starts the server the lock pins under its name, so pin that server \(its own command\) instead$/m,
    );
    assert.deepEqual(Object.keys(JSON.parse(ws.read()).servers), ["memory"]);
  });
});
