// Reading live servers within bounds: a deadline that holds whatever the
// parse costs, a server that fails at start-up started once and explained,
// a version probe that cannot eat the deadline, and Streamable HTTP servers
// that end a response stream and expect the client to resume it.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { after, describe, it } from "node:test";
import { pythonDigest, runCli } from "../helpers/cli.js";
import type { Running } from "../helpers/servers.js";
import { Workspace } from "../helpers/workspace.js";

const LIVE_STDIO = fileURLToPath(
  new URL("../fixtures/servers/live-stdio-server.mjs", import.meta.url),
);
const SSE_POLLING = fileURLToPath(
  new URL("../fixtures/servers/live-sse-polling-server.mjs", import.meta.url),
);
const STREAM_LOOP = fileURLToPath(
  new URL("../fixtures/servers/live-http-stream-loop.mjs", import.meta.url),
);
const TOOLS = JSON.parse(
  readFileSync(new URL("../fixtures/servers/tools.json", import.meta.url), "utf8"),
);

const workspaces: Workspace[] = [];
function workspace(): Workspace {
  const ws = new Workspace();
  workspaces.push(ws);
  return ws;
}
after(() => {
  for (const ws of workspaces) rmSync(ws.dir, { recursive: true, force: true });
});

/** `contractpin add fake ... -- node live-stdio-server.mjs MODE STARTS`, timed. */
function addLive(ws: Workspace, mode: string, ...options: string[]) {
  const started = Date.now();
  const r = runCli(
    [
      "add",
      "fake",
      "--tools-only",
      ...options,
      "--",
      process.execPath,
      LIVE_STDIO,
      mode,
      ws.path("starts"),
    ],
    { cwd: ws.dir },
  );
  return { ...r, seconds: (Date.now() - started) / 1000 };
}

/** How many times the fake server was started. */
function starts(ws: Workspace): number {
  return ws.read("starts").split("\n").filter(Boolean).length;
}

/** The lock entry's digests, and the independent Python implementation's for the fixtures' tools. */
function pinnedAndExpected(ws: Workspace, name: string): [unknown, unknown] {
  const pinned = ws.lockJson().servers[name]!;
  return [
    { tool_count: pinned["tool_count"], digest: pinned["digest"], tools: pinned["tools"] },
    pythonDigest(ws.dump("expected.json", TOOLS)),
  ];
}

const count = (text: string, what: string) => text.split(what).length - 1;

describe("--timeout bounds the whole read, parsing included", () => {
  it("a 60 MiB tools/list line sent 900 ms after start, with --timeout 1: exit 1, timed out, not accepted late", () => {
    // The line arrives before the deadline on an idle machine; moving and
    // parsing it ends after the deadline on any machine (on a fast idle one,
    // sent at once, it could be read within the second and rightly accepted).
    const ws = workspace();
    const r = addLive(ws, "huge-line:900", "--timeout", "1");
    assert.equal(r.code, 1, r.stderr.slice(0, 500));
    assert.match(r.stderr, /^contractpin: server fake: tools\/list page 1: timed out after 1 s\n/);
    assert.throws(() => ws.read(), /ENOENT/, "no lock was written");
  });

  it("a line complete 500 ms before the deadline whose strict parse ends after it: timed out", () => {
    const ws = workspace();
    const r = addLive(ws, "slow-parse-late:4500", "--timeout", "5");
    assert.equal(r.code, 1, r.stderr.slice(0, 500));
    assert.match(r.stderr, /^contractpin: server fake: tools\/list page 1: timed out after 5 s\n/);
    assert.throws(() => ws.read(), /ENOENT/, "no lock was written");
  });
});

describe("a stdio server that fails at start-up", () => {
  it("is started once; its first and last stderr lines shown once; its exit code in the message", () => {
    const ws = workspace();
    const r = addLive(ws, "start-fail");
    assert.equal(r.code, 1);
    assert.equal(starts(ws), 1, "started exactly once");
    assert.match(
      r.stderr,
      /^contractpin: server fake: the server exited with code 3 before answering\n/,
    );
    assert.equal(count(r.stderr, "FIRST-LINE Error: Cannot find module '/nowhere/server.js'"), 1);
    assert.equal(count(r.stderr, "LAST-LINE Node.js v20"), 1);
    assert.match(r.stderr, /\| \.\.\. \d+ lines? skipped \.\.\./);
    assert.ok(r.stderr.split("\n").length < 30, r.stderr);
  });

  it("killed by a signal: the signal is named", () => {
    const ws = workspace();
    const r = addLive(ws, "killed");
    assert.equal(r.code, 1);
    assert.equal(starts(ws), 1);
    assert.match(
      r.stderr,
      /^contractpin: server fake: the server was killed by SIGKILL before answering\n/,
    );
  });

  it("missing a token (a reason of its own, said on stderr): started once, its stderr shown once", () => {
    const ws = workspace();
    const r = addLive(ws, "missing-token");
    assert.equal(r.code, 1);
    assert.equal(starts(ws), 1, "started exactly once");
    assert.equal(
      r.stderr,
      "contractpin: server fake: the server exited with code 1 before answering\n" +
        "  | Error: GITHUB_PERSONAL_ACCESS_TOKEN is not set\n",
    );
  });

  it("a server that exits with code 3 on server/discover, saying nothing, is read on a second start, promptly", () => {
    const ws = workspace();
    const r = addLive(ws, "silent-exit-on-discover");
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, "");
    assert.equal(starts(ws), 2);
    assert.ok(r.seconds < 5, `took ${r.seconds} s`);
    const [pinned, expected] = pinnedAndExpected(ws, "fake");
    assert.deepEqual(pinned, expected);
  });

  it("a server that ends at once saying nothing: started at most twice, reported once", () => {
    const ws = workspace();
    const r = addLive(ws, "silent-start-fail");
    assert.equal(r.code, 1);
    assert.equal(starts(ws), 2, "a second start, and no third");
    assert.equal(
      r.stderr,
      "contractpin: server fake: the server exited with code 3 before answering\n",
    );
  });

  // A process that ends within a millisecond of its start has closed its
  // stdin before contractpin's first write: the write fails with EPIPE, and
  // the library closes the transport before the exit is seen.
  it("a server that ends before the first write reaches it: its exit code, never 'write EPIPE'", () => {
    const ws = workspace();
    for (let i = 0; i < 3; i++) {
      const r = runCli(["add", "fake", "--", "sh", "-c", "exit 3"], { cwd: ws.dir });
      assert.equal(r.code, 1);
      assert.equal(
        r.stderr,
        "contractpin: server fake: the server exited with code 3 before answering\n",
      );
    }
  });

  it("a command that is not an MCP server (ends at once with code 0) is named as such, never 'write EPIPE'", () => {
    const ws = workspace();
    for (const command of [["true"], [process.execPath, LIVE_STDIO, "not-a-server"]]) {
      const r = runCli(["add", "fake", "--", ...command], { cwd: ws.dir });
      assert.equal(r.code, 1);
      assert.equal(
        r.stderr,
        "contractpin: server fake: the server exited with code 0 before answering: " +
          "a stdio MCP server runs until its stdin closes; is this command one?\n",
      );
    }
  });

  it("a server that exits on any request before initialize (the Rust SDK's shape) is still read, on a second start", () => {
    const ws = workspace();
    const r = addLive(ws, "exit-on-discover");
    assert.equal(r.code, 0, r.stderr);
    assert.equal(starts(ws), 2);
    const [pinned, expected] = pinnedAndExpected(ws, "fake");
    assert.deepEqual(pinned, expected);
  });
});

describe("the version probe has its own slice of the deadline on stdio", () => {
  for (const mode of ["ignore-discover", "malformed-discover"]) {
    it(`${mode}: read with the default --timeout in well under 10 s, digests as served`, () => {
      const ws = workspace();
      const r = addLive(ws, mode);
      assert.equal(r.code, 0, r.stderr);
      assert.ok(r.seconds < 10, `took ${r.seconds} s`);
      assert.match(r.stdout, /^pinned fake \(stdio .*\): 4 tools, sha256:/);
      assert.equal(starts(ws), 1);
      const [pinned, expected] = pinnedAndExpected(ws, "fake");
      assert.deepEqual(pinned, expected);
      assert.equal(runCli(["verify"], { cwd: ws.dir }).code, 0);
    });
  }
});

describe("Streamable HTTP with SSE polling: streams the server ends are resumed", () => {
  const servers: Running[] = [];
  after(async () => {
    await Promise.all(servers.map((s) => s.stop()));
  });

  /** Starts an HTTP fixture; `resumed()` asks it how many streams were resumed with Last-Event-ID. */
  async function start(
    fixture = SSE_POLLING,
    ...args: string[]
  ): Promise<Running & { resumed(): Promise<number> }> {
    const child = spawn(process.execPath, [fixture, ...args], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    const port = await new Promise<number>((resolve, reject) => {
      child.stdout!.once("data", (d: Buffer) =>
        resolve(Number(/listening on (\d+)/.exec(d.toString())![1])),
      );
      child.once("exit", () => reject(new Error("the HTTP fixture exited")));
    });
    const running = {
      url: `http://127.0.0.1:${port}/mcp`,
      process: child,
      stop: () =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once("exit", () => resolve());
          child.kill("SIGKILL");
        }),
      resumed: async () => Number(await (await fetch(`http://127.0.0.1:${port}/resumed`)).text()),
    };
    servers.push(running);
    return running;
  }

  it("a real SDK v1 server (closeSSEStream): add --url and verify resume the stream (GET + Last-Event-ID); digests as served", async () => {
    const ws = workspace();
    const server = await start();
    const add = runCli(["add", "remote", "--tools-only", "--url", server.url], { cwd: ws.dir });
    assert.equal(add.code, 0, add.stderr);
    assert.match(add.stdout, /^pinned remote \(http .*\): 4 tools, sha256:/);
    const afterAdd = await server.resumed();
    assert.ok(afterAdd >= 1, "the tools/list stream was resumed");
    const verify = runCli(["verify"], { cwd: ws.dir });
    assert.equal(verify.code, 0, verify.stdout + verify.stderr);
    assert.match(verify.stdout, /OK: 1 server matches the lock/);
    assert.ok((await server.resumed()) > afterAdd, "and again by verify");
    const [pinned, expected] = pinnedAndExpected(ws, "remote");
    assert.deepEqual(pinned, expected);
  });

  it("a retry interval past the deadline: no reconnection after it, timed out on time", async () => {
    const ws = workspace();
    const server = await start(SSE_POLLING, "60000");
    const started = Date.now();
    const r = runCli(["add", "remote", "--tools-only", "--url", server.url, "--timeout", "2"], {
      cwd: ws.dir,
    });
    const seconds = (Date.now() - started) / 1000;
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /^contractpin: server remote: tools\/list page 1: timed out after 2 s\n$/,
    );
    // Not the 60 s the server asked for: the deadline, plus start-up and clean-up.
    assert.ok(seconds < 8, `took ${seconds} s`);
    assert.equal(await server.resumed(), 0);
  });

  it("a server that ends every stream without answering: at most 10 resumptions, then a clear error", async () => {
    const ws = workspace();
    const server = await start(STREAM_LOOP);
    const started = Date.now();
    const r = runCli(["add", "remote", "--tools-only", "--url", server.url, "--timeout", "20"], {
      cwd: ws.dir,
    });
    const seconds = (Date.now() - started) / 1000;
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /^contractpin: server remote: tools\/list page 1: the server ended its event stream more than 10 times without answering\n$/,
    );
    assert.ok(seconds < 15, `took ${seconds} s`);
    assert.equal(await server.resumed(), 10);
  });

  it("a standalone GET stream is never opened, so one that would end at once costs nothing", async () => {
    const ws = workspace();
    const server = await start(STREAM_LOOP, "standalone");
    const r = runCli(["add", "remote", "--tools-only", "--url", server.url], { cwd: ws.dir });
    assert.equal(r.code, 0, r.stderr);
    const [pinned, expected] = pinnedAndExpected(ws, "remote");
    assert.deepEqual(pinned, expected);
    const standalone = await fetch(server.url.replace("/mcp", "/standalone"));
    assert.equal(await standalone.text(), "0");
  });
});
