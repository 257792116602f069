// The guard's early start (src/cli/early-start.ts, docs/guard.md#start-up):
// the launcher starts a guarded stdio server before it loads the CLI bundle,
// and the guard takes that process over only when it would start the very
// same one from the lock it validated; a server nobody takes is ended.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import { prepareEarlyStart, startEarly } from "../../src/cli/early-start.js";
import {
  discardEarlyServer,
  earlyLockRead,
  earlyServersEnded,
  offerEarlyStart,
  takeEarlyServer,
} from "../../src/guard/faces/early-server.js";
import { openUpstream } from "../../src/guard/faces/upstream.js";
import { LockState } from "../../src/guard/policy/lock-state.js";
import { fileStamp } from "../../src/io/file-stamp.js";
import { stdioSpawnSpec } from "../../src/sources/live/spawn-spec.js";
import {
  spawnServer,
  type SpawnedServer,
  type SpawnSpec,
} from "../../src/sources/live/spawn-server.js";
import { StdioTransport } from "../../src/sources/live/stdio-transport.js";
import { tempDir } from "../helpers/cleanup.js";
import {
  assert,
  eventually,
  FAKE,
  fakeSetup,
  isRunning,
  RawClient,
  readPid,
  writeLock,
} from "./guard-harness.js";

/**
 * A lock pinning, as `fake`, the fake server behind a wrapper that first
 * appends its pid to DIR/starts.log: how many servers were started.
 */
function countedSetup(): { dir: string; lock: string } {
  const { dir, lock } = fakeSetup();
  const counted = join(dir, "counted-server.mjs");
  writeFileSync(
    counted,
    `import { appendFileSync } from "node:fs";\n` +
      `appendFileSync(process.argv[2] + "/starts.log", process.pid + "\\n");\n` +
      `await import(${JSON.stringify(pathToFileURL(FAKE).href)});\n`,
  );
  const text = readFileSync(lock, "utf8");
  writeFileSync(lock, text.replace(JSON.stringify(FAKE), JSON.stringify(counted)));
  return { dir, lock };
}

const starts = (dir: string): number[] => {
  const log = join(dir, "starts.log");
  return existsSync(log) ? readFileSync(log, "utf8").trim().split("\n").map(Number) : [];
};

/**
 * A --require hook for the guard's process that logs, in order, each process
 * it spawns and the compile of the CLI bundle (cli.cjs) to EARLY_LOG; with
 * EARLY_SIGNAL set, the guard sends itself that signal as the compile starts,
 * before the CLI has installed its own handlers.
 */
function orderHook(dir: string): {
  env: Record<string, string>;
  events: () => string[];
  pids: () => number[];
} {
  const hook = join(dir, "order-hook.cjs");
  const log = join(dir, "order.log");
  const lines = () => (existsSync(log) ? readFileSync(log, "utf8").trim().split("\n") : []);
  writeFileSync(
    hook,
    `const fs = require("node:fs");
const log = process.env.EARLY_LOG;
if (log !== undefined && process.argv.includes("guard")) {
  const cp = require("node:child_process");
  const spawn = cp.spawn;
  cp.spawn = function (...args) {
    const child = spawn.apply(this, args);
    fs.appendFileSync(log, "spawn " + child.pid + "\\n");
    return child;
  };
  const vm = require("node:vm");
  const Script = vm.Script;
  vm.Script = class extends Script {
    constructor(source, options) {
      if (String(options?.filename).endsWith("cli.cjs")) {
        fs.appendFileSync(log, "bundle\\n");
        if (process.env.EARLY_SIGNAL) process.kill(process.pid, process.env.EARLY_SIGNAL);
      }
      super(source, options);
    }
  };
}
`,
  );
  return {
    env: { NODE_OPTIONS: `--require ${hook}`, EARLY_LOG: log },
    events: () => lines().map((line) => line.split(" ")[0]!),
    pids: () =>
      lines().flatMap((line) => (line.startsWith("spawn ") ? [Number(line.slice(6))] : [])),
  };
}

describe("the launcher starts a guarded stdio server early", () => {
  it("starts it once, before the CLI bundle loads, and the guard relays that very process", async () => {
    const { dir, lock } = countedSetup();
    const order = orderHook(dir);
    const client = new RawClient(["fake", "--lock", lock], order.env);
    const init = await client.initialize();
    assert.deepEqual(init.result.capabilities, { tools: { listChanged: true } });
    const list = await client.request(1, "tools/list", {});
    assert.deepEqual(
      list.result.tools.map((t: { name: string }) => t.name),
      ["alpha", "beta"], // its first page
    );
    assert.deepEqual(order.events(), ["spawn", "bundle"], "one spawn, before the bundle");
    assert.deepEqual(starts(dir), [readPid(dir, "server.pid")], "one server, the one relayed");
    assert.equal((await client.close()).code, 0);
    assert.ok(!isRunning(starts(dir)[0]!), "the server still runs after the guard ended");
  });

  it("starts nothing for arguments the guard refuses", async () => {
    const { dir, lock } = countedSetup();
    const client = new RawClient(["fake", "--lock", lock, "--on-drift=bogus"]);
    assert.equal((await client.close()).code, 2);
    assert.match(client.stderr, /--on-drift takes withhold, block or graded, not 'bogus'/);
    assert.deepEqual(starts(dir), []);
  });

  for (const [option, value, message] of [
    ["--timeout", "soon", /--timeout takes a positive number of seconds, not 'soon'/],
    ["--max-message-mib", "0", /--max-message-mib takes a whole number from 1 to/],
    ["--oauth-state-out", "", /--oauth-state-out takes a file path/],
  ] as const) {
    it(`starts nothing for ${option} ${JSON.stringify(value)}, which the guard refuses`, async () => {
      const { dir, lock } = countedSetup();
      const order = orderHook(dir);
      const client = new RawClient(["fake", "--lock", lock, `${option}=${value}`], order.env);
      assert.equal((await client.close()).code, 2);
      assert.match(client.stderr, message);
      assert.deepEqual(order.pids(), []);
      assert.deepEqual(starts(dir), []);
    });
  }

  it("a server started for a guard that fails later (its --log cannot be opened) is ended politely before the guard exits", async () => {
    const { dir, lock } = fakeSetup();
    // A server that runs on when its stdin closes, and says when it is asked to end.
    const ends = join(dir, "ends.log");
    const pinned = JSON.parse(readFileSync(lock, "utf8"));
    pinned.servers.fake.command = [
      process.execPath,
      "-e",
      `const fs = require("node:fs");
       process.on("SIGTERM", () => { fs.appendFileSync(${JSON.stringify(ends)}, "SIGTERM\\n"); process.exit(0); });
       setInterval(() => {}, 1000);`,
    ];
    writeFileSync(lock, JSON.stringify(pinned));
    const order = orderHook(dir);
    const log = join(dir, "missing", "guard.jsonl");
    const client = new RawClient(["fake", "--lock", lock, "--log", log], order.env);
    assert.equal((await client.close()).code, 2);
    assert.match(client.stderr, /--log .*: cannot open the file: ENOENT/);
    const [pid] = order.pids();
    assert.ok(pid !== undefined && pid > 0, "the launcher started the server");
    // Ended before the guard exited, by SIGTERM (a package runner tidies its cache on it), not killed at exit.
    assert.equal(isRunning(pid), false, "the server outlived the guard");
    assert.equal(readFileSync(ends, "utf8"), "SIGTERM\n");
  });

  it("a --log that is a FIFO nobody reads is refused, not waited on", async () => {
    const { dir, lock } = countedSetup();
    const fifo = join(dir, "fifo");
    assert.equal(spawnSync("mkfifo", [fifo]).status, 0);
    const client = new RawClient(["fake", "--lock", lock, "--log", fifo]);
    assert.equal((await client.close()).code, 2);
    assert.match(client.stderr, /--log .*fifo: cannot open the file: ENXIO/);
    const started = starts(dir);
    assert.equal(started.length, 1);
    assert.equal(isRunning(started[0]!), false, "the server outlived the guard");
  });

  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
    it(`a ${signal} before the CLI handles it ends the guard as an interrupt, and the early server with it`, async () => {
      const { dir, lock } = fakeSetup();
      // A server that runs on when its stdin closes: only its group's end stops it.
      const pinned = JSON.parse(readFileSync(lock, "utf8"));
      pinned.servers.fake.command = [process.execPath, "-e", "setInterval(() => {}, 1000)"];
      writeFileSync(lock, JSON.stringify(pinned));
      const order = orderHook(dir);
      const client = new RawClient(["fake", "--lock", lock], {
        ...order.env,
        EARLY_SIGNAL: signal,
      });
      const exit = await client.exited;
      assert.deepEqual(order.events(), ["spawn", "bundle"], "the signal came as the bundle loaded");
      assert.deepEqual(exit, { code: 2, signal: null }, client.stderr);
      assert.match(client.stderr, new RegExp(`interrupted by ${signal}\\n$`));
      const [pid] = order.pids();
      await eventually(() => !isRunning(pid!), "the early server was ended with the guard");
    });
  }

  it("a server started for a lock that the guard then refuses is ended with the guard", async () => {
    const { dir, lock } = countedSetup();
    // The entry is valid (so the launcher starts it), another server's is not.
    const pinned = JSON.parse(readFileSync(lock, "utf8"));
    pinned.servers.other = { ...pinned.servers.fake, tool_count: 7 };
    writeFileSync(lock, JSON.stringify(pinned));
    const client = new RawClient(["fake", "--lock", lock]);
    const init = await client.request(0, "initialize", {});
    assert.match(init.error.message, /lock is corrupt/);
    assert.equal((await client.close()).code, 2);
    const started = starts(dir);
    assert.equal(started.length, 1, "the launcher started it");
    assert.ok(!isRunning(started[0]!), "the server still runs after the guard refused the lock");
  });
});

/**
 * The guard's upstream for server `fake` of `lock` (openUpstream, as the
 * guard opens it), with every message it relays and every failure it reports.
 */
async function openRecorded(lock: string, dir: string) {
  const messages: string[] = [];
  const failures: string[] = [];
  const upstream = await openUpstream(new LockState(lock, "fake"), {
    server: "fake",
    ctx: {
      env: process.env,
      lockDir: dir,
      timeoutMs: 5000,
      maxMessageBytes: 1 << 20,
      warn: () => undefined,
    },
    say: () => undefined,
    tail: () => undefined,
    setRedact: () => undefined,
    message: (bytes) => messages.push(Buffer.from(bytes).toString()),
    fail: (message) => failures.push(message),
    ended: () => undefined,
  });
  return { upstream, messages, failures };
}

/** A lock read that no guard asks for. */
const NO_LOCK = {
  path: "/nonexistent/contractpin.lock",
  stamp: "",
  bytes: new Uint8Array(),
  parsed: null,
};

/** The spawn spec the early start would use for these arguments. */
const earlySpec = (args: string[], cwd: string) => prepareEarlyStart(args, cwd, process.env)?.spec;

describe("the guard takes a server started early only for the same spawn spec", () => {
  const sleeper = (marker: string): SpawnSpec => ({
    command: process.execPath,
    args: ["-e", "setTimeout(() => {}, 60000)", marker],
    env: {},
    cwd: tempDir(),
  });

  it("ends one started from another spec, and starts none in its place", async () => {
    const early = spawnServer(sleeper("a"));
    offerEarlyStart(NO_LOCK, early);
    assert.equal(takeEarlyServer(sleeper("b")), undefined);
    // Ended as any server is: stdin closed, then SIGTERM to its group (it ignores the former).
    assert.deepEqual(await exitOf(early), { code: null, signal: "SIGTERM" });
  });

  it("hands over one started from the same spec, once", async () => {
    const spec = sleeper("a");
    const early = spawnServer(spec);
    offerEarlyStart(NO_LOCK, early);
    assert.equal(takeEarlyServer({ ...spec, env: {} }), early);
    assert.equal(takeEarlyServer(spec), undefined, "taken twice");
    discardEarlyServer(); // nothing left to end
    assert.ok(isRunning(early.child.pid!));
    process.kill(-early.child.pid!, "SIGKILL");
    await early.exit;
  });

  it("ends one the guard does not take (discard)", async () => {
    const early = spawnServer(sleeper("a"));
    offerEarlyStart(NO_LOCK, early);
    discardEarlyServer();
    assert.deepEqual(await exitOf(early), { code: null, signal: "SIGTERM" });
  });

  it("a package runner nobody takes is given its grace to tidy up, and the guard waits for its end", async () => {
    // A stand-in for npx that takes two seconds to tidy its cache on SIGTERM.
    const bin = tempDir();
    const npx = join(bin, "npx");
    const log = join(bin, "npx.log");
    writeFileSync(
      npx,
      `#!/bin/sh\ntrap 'echo TERM >> "${log}"; sleep 2; echo tidied >> "${log}"; exit 0' TERM\n` +
        `while :; do sleep 0.1; done\n`,
      { mode: 0o755 },
    );
    const early = spawnServer({ command: npx, args: [], env: {}, cwd: bin });
    assert.equal(await early.started, undefined);
    offerEarlyStart(NO_LOCK, early);
    await earlyServersEnded();
    assert.equal(readFileSync(log, "utf8"), "TERM\ntidied\n");
    assert.equal(isRunning(early.child.pid!), false);
  });

  it("a lock that names another command by the time the guard reads it: the early one is ended, the lock's one relayed", async () => {
    const { dir, lock } = countedSetup();
    startEarly(["fake", "--lock", lock]);
    await eventually(() => starts(dir).length === 1, "the early server started");
    const [first] = starts(dir);
    // The lock now runs the plain fake server (no start log) for `fake`.
    const text = readFileSync(lock, "utf8");
    writeFileSync(
      lock,
      text.replace(JSON.stringify(join(dir, "counted-server.mjs")), JSON.stringify(FAKE)),
    );
    const { upstream, messages, failures } = await openRecorded(lock, dir);
    assert.deepEqual(failures, []);
    assert.ok(upstream !== undefined);
    await eventually(() => !isRunning(first!), "the early server was ended");
    assert.deepEqual(starts(dir), [first], "the lock's server logs no start");
    await upstream.sendRaw(Buffer.from(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" })));
    await eventually(() => messages.length > 0, "the lock's server answered");
    assert.equal(readPid(dir, "server.pid") === first, false, "the early server answered");
    await upstream.close();
  });
});

describe("what a server started early wrote before the guard took it over", () => {
  it("reaches the guard only after the lock is validated: a corrupt lock relays none of it", async () => {
    const { dir, lock } = fakeSetup();
    // A server that writes a notification at once, then says so in a file.
    const chatty = join(dir, "chatty-server.cjs");
    writeFileSync(
      chatty,
      `process.stdout.write('{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"early words"}}\\n');\n` +
        `require("node:fs").writeFileSync(process.argv[2] + "/written", "");\n` +
        `setInterval(() => {}, 1000);\n`,
    );
    // Its entry is valid; another server's is not (the tool count is off).
    const pinned = JSON.parse(readFileSync(lock, "utf8"));
    pinned.servers.fake.command = [process.execPath, chatty, dir];
    pinned.servers.other = { ...pinned.servers.fake, tool_count: 7 };
    writeFileSync(lock, JSON.stringify(pinned));
    const early = prepareEarlyStart(["fake", "--lock", lock], dir, process.env)!;
    const server = spawnServer(early.spec!);
    await eventually(() => existsSync(join(dir, "written")), "the server wrote its line");
    offerEarlyStart(early.lock, server);
    const { upstream, messages, failures } = await openRecorded(lock, dir);
    assert.equal(upstream, undefined);
    assert.equal(failures.length, 1);
    assert.match(failures[0]!, /lock is corrupt/);
    assert.deepEqual(messages, [], "the server's line was relayed before the lock was refused");
    await exitOf(server); // ended, not left running
  });
});

describe("the early start's spec", () => {
  it("is the spec the guard computes from the validated lock", () => {
    const { dir, lock } = fakeSetup();
    const spec = earlySpec(["fake", "--lock", lock, "--on-drift=graded"], dir);
    const pinned = new LockState(lock, "fake").validated();
    assert.ok(pinned.transport === "stdio");
    assert.deepEqual(spec, stdioSpawnSpec(pinned, { env: process.env, lockDir: dir }));
  });

  it("is none for --listen, an HTTP server, or a server whose image runs by its recorded digest", () => {
    const dir = tempDir();
    const lock = writeLock(join(dir, "contractpin.lock"), {});
    const text = readFileSync(lock, "utf8");
    const remote = { transport: "http", url: "http://127.0.0.1:9/mcp" };
    writeFileSync(
      lock,
      text.replace('"servers":{}', `"servers":{"remote":${JSON.stringify(remote)}}`),
    );
    assert.equal(earlySpec(["remote", "--lock", lock], dir), undefined);
    const { lock: fake } = fakeSetup();
    assert.equal(earlySpec(["fake", "--lock", fake, "--listen", "127.0.0.1:0"], dir), undefined);
    const pinned = JSON.parse(readFileSync(fake, "utf8"));
    pinned.servers.fake.artifact = { kind: "image" };
    writeFileSync(fake, JSON.stringify(pinned));
    assert.equal(earlySpec(["fake", "--lock", fake], dir), undefined);
  });

  it("startEarly never throws, whatever it is given", () => {
    const dir = tempDir();
    for (const args of [[], ["--bogus"], ["x", "--lock", join(dir, "missing.lock")], ["a", "b"]])
      assert.doesNotThrow(() => startEarly(args, dir));
    discardEarlyServer();
  });
});

describe("the guard's lock takes the early start's read", () => {
  /** The fake server's lock, and a parse of it that runs another command (to tell the two apart). */
  function offered(): { lock: string; read: Parameters<typeof offerEarlyStart>[0] } {
    const { lock } = fakeSetup();
    const bytes = readFileSync(lock);
    const parsed = JSON.parse(bytes.toString());
    parsed.servers.fake.command = [process.execPath, "--version"];
    return { lock, read: { path: resolve(lock), stamp: fileStamp(lock), bytes, parsed } };
  }

  it("while the file is the one it read", () => {
    const { lock, read } = offered();
    offerEarlyStart(read);
    const source = new LockState(lock, "fake").startable();
    assert.deepEqual(source?.transport === "stdio" && source.command, [
      process.execPath,
      "--version",
    ]);
    assert.equal(earlyLockRead(lock), undefined, "taken once");
  });

  it("not once the file changed, nor for another file", () => {
    const { lock, read } = offered();
    offerEarlyStart(read);
    assert.equal(new LockState(join(lock, "..", "other.lock"), "fake").startable(), undefined);
    utimesSync(lock, new Date(), new Date(Date.now() + 5000));
    const source = new LockState(lock, "fake").startable();
    assert.ok(source?.transport === "stdio");
    assert.notDeepEqual(source.command, [process.execPath, "--version"]);
  });
});

describe("a transport that takes over a started process", () => {
  const lines = () => {
    const got: string[] = [];
    const sink = {
      maxMessageBytes: 1 << 20,
      receivedLine: (line: Uint8Array) => (got.push(Buffer.from(line).toString()), undefined),
      failTooLarge: () => new Error("too large"),
      sent: () => undefined,
    };
    return { got, sink };
  };

  it("gets what the process wrote and how it ended, both before it was taken over", async () => {
    const spec: SpawnSpec = {
      command: process.execPath,
      args: [
        "-e",
        'process.stdout.write("hello\\n"); process.stderr.write("no token\\n"); process.exit(3)',
      ],
      env: {},
      cwd: tempDir(),
    };
    const started = spawnServer(spec);
    await exitOf(started); // it is gone before anything reads it
    const { got, sink } = lines();
    const t = new StdioTransport(spec, sink, started);
    const closed = new Promise<void>((done) => (t.onclose = done));
    await t.start();
    await closed;
    assert.deepEqual(got, ["hello"]);
    assert.deepEqual(t.stderrTail.lines(), ["no token"]);
    assert.deepEqual(t.exitStatus, { code: 3, signal: null });
  });

  it("fails to start, as its own spawn would, when the command could not be started", async () => {
    const spec: SpawnSpec = {
      command: join(tempDir(), "no-such-command"),
      args: [],
      env: {},
      cwd: tempDir(),
    };
    const started = spawnServer(spec);
    await new Promise((done) => setTimeout(done, 50));
    const t = new StdioTransport(spec, lines().sink, started);
    await assert.rejects(t.start(), /ENOENT/);
  });
});

/** How a started server exited, failing the test when it runs on for 10 s. */
function exitOf(server: SpawnedServer): Promise<unknown> {
  return Promise.race([
    server.exit,
    new Promise((_, fail) => setTimeout(() => fail(new Error("it still runs")), 10_000).unref()),
  ]);
}
