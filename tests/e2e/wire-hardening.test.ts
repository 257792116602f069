// What a server may put on the wire: every message bounded in size on every
// transport, one response per request contractpin sent, and log lines on a
// stdio server's stdout skipped with a warning. Through the built CLI, with
// fake servers that break each rule.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { oneLine, pythonDigest, runCli, startCli } from "../helpers/cli.js";
import { type Running } from "../helpers/servers.js";
import { Workspace } from "../helpers/workspace.js";

const FIXTURES = new URL("../fixtures/servers/", import.meta.url);
const WIRE_HTTP = fileURLToPath(new URL("wire-http-server.mjs", FIXTURES));
const WIRE_STDIO = fileURLToPath(new URL("wire-stdio-server.mjs", FIXTURES));
const TOOLS = JSON.parse(readFileSync(new URL("tools.json", FIXTURES), "utf8"));
const MIB = 1024 * 1024;

const workspaces: Workspace[] = [];
const servers: Running[] = [];
after(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  for (const ws of workspaces) rmSync(ws.dir, { recursive: true, force: true });
});

function workspace(): Workspace {
  const ws = new Workspace();
  workspaces.push(ws);
  return ws;
}

/** Starts the wire HTTP fake in `mode` (BYTES: the size of its oversized part) and returns its URL. */
async function wireHttp(mode: string, bytes?: number): Promise<string> {
  const child = spawn(process.execPath, [WIRE_HTTP, mode, ...(bytes ? [String(bytes)] : [])], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill("SIGKILL");
    });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.once("data", (d: Buffer) =>
      resolve(Number(/listening on (\d+)/.exec(d.toString())![1])),
    );
    child.once("exit", () => reject(new Error("the wire fake exited")));
  });
  const url = `http://127.0.0.1:${port}/mcp`;
  servers.push({ url, process: child, stop });
  return url;
}

function addHttp(ws: Workspace, url: string, ...extra: string[]) {
  return runCli(["add", "remote", "--tools-only", "--url", url, ...extra], { cwd: ws.dir });
}

function addStdio(ws: Workspace, mode: string) {
  return runCli(["add", "fake", "--tools-only", "--", process.execPath, WIRE_STDIO, mode], {
    cwd: ws.dir,
  });
}

/** Asserts exit 1 with one line on stderr for server `name`, matching `reason`. */
function failsWith(r: { code: number | null; stderr: string }, name: string, reason: RegExp) {
  assert.equal(r.code, 1, r.stderr);
  assert.ok(oneLine(r.stderr), r.stderr);
  assert.match(r.stderr, new RegExp(`^contractpin: server ${name}: ${reason.source}\\n$`));
}

describe("a message larger than the limit", () => {
  it("a JSON body with a Content-Length: exit 1", async () => {
    const ws = workspace();
    const r = addHttp(ws, await wireHttp("json-big", 2 * MIB), "--max-message-mib", "1");
    failsWith(r, "remote", /tools\/list page 1: the server sent a message larger than 1 MiB/);
  });

  it("a JSON body without a Content-Length: exit 1", async () => {
    const ws = workspace();
    const r = addHttp(ws, await wireHttp("json-big-chunked", 2 * MIB), "--max-message-mib", "1");
    failsWith(r, "remote", /tools\/list page 1: the server sent a message larger than 1 MiB/);
  });

  it("the limit is inclusive: a body of exactly 1 MiB is read, one byte more is not", async () => {
    const ws = workspace();
    const exact = addHttp(ws, await wireHttp("json-big-chunked", MIB), "--max-message-mib", "1");
    assert.equal(exact.code, 0, exact.stderr);
    // The fake's response: one tool whose description fills the body to 1 MiB.
    const head = `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"big","inputSchema":{"type":"object"},"description":"`;
    const tool = {
      name: "big",
      inputSchema: { type: "object" },
      description: "x".repeat(MIB - head.length - `"}]}}`.length),
    };
    const expected = pythonDigest(ws.dump("expected.json", [tool])) as { digest: string };
    assert.equal(ws.lockJson().servers["remote"]!["digest"], expected.digest);
    const over = runCli(
      ["add", "other", "--tools-only", "--url", await wireHttp("json-big-chunked", MIB + 1)],
      {
        cwd: ws.dir,
      },
    );
    assert.equal(over.code, 0, "the default limit is 64 MiB");
    const refused = runCli(
      [
        "add",
        "third",
        "--tools-only",
        "--url",
        await wireHttp("json-big-chunked", MIB + 1),
        "--max-message-mib",
        "1",
      ],
      { cwd: ws.dir },
    );
    failsWith(refused, "third", /tools\/list page 1: the server sent a message larger than 1 MiB/);
  });

  it("stdio: a line of the limit is read; one byte more is refused, though its newline came in the same read", () => {
    const ws = workspace();
    const exact = runCli(
      [
        "add",
        "exact",
        "--max-message-mib",
        "1",
        "--",
        process.execPath,
        WIRE_STDIO,
        `line-bytes:${MIB}`,
      ],
      { cwd: ws.dir },
    );
    assert.equal(exact.code, 0, exact.stderr);
    for (const over of [MIB + 1, MIB + 30_000]) {
      const r = runCli(
        [
          "add",
          "over",
          "--max-message-mib",
          "1",
          "--",
          process.execPath,
          WIRE_STDIO,
          `line-bytes:${over}`,
        ],
        { cwd: ws.dir },
      );
      failsWith(r, "over", /tools\/list page 1: the server sent a message larger than 1 MiB/);
    }
  });

  it("a Content-Length over the limit is refused before the body is read", async () => {
    // The fake promises 200 MiB and sends nothing: only the header can end the read.
    const ws = workspace();
    const started = Date.now();
    const r = addHttp(
      ws,
      await wireHttp("content-length-huge", 200 * MIB),
      "--max-message-mib",
      "1",
      "--timeout",
      "20",
    );
    failsWith(r, "remote", /tools\/list page 1: the server sent a message larger than 1 MiB/);
    assert.ok(Date.now() - started < 15_000, `took ${Date.now() - started} ms`);
  });

  it("an SSE event over the limit: exit 1", async () => {
    const ws = workspace();
    const r = addHttp(ws, await wireHttp("sse-big", 2 * MIB), "--max-message-mib", "1");
    failsWith(r, "remote", /tools\/list page 1: the server sent a message larger than 1 MiB/);
  });

  it("an SSE event that never ends: refused at the limit, not at the deadline", async () => {
    const ws = workspace();
    const started = Date.now();
    const r = addHttp(
      ws,
      await wireHttp("sse-big-chunked", 1e12),
      "--max-message-mib",
      "1",
      "--timeout",
      "20",
    );
    failsWith(r, "remote", /tools\/list page 1: the server sent a message larger than 1 MiB/);
    assert.ok(Date.now() - started < 15_000, `took ${Date.now() - started} ms`);
  });

  it("a batch whose messages are each under the limit but which is over it: exit 1", async () => {
    const ws = workspace();
    const r = addHttp(ws, await wireHttp("batch-big", 2 * MIB), "--max-message-mib", "1");
    failsWith(r, "remote", /tools\/list page 1: the server sent a message larger than 1 MiB/);
  });

  it("by default 64 MiB: a body one byte over, without a Content-Length, fails quickly in bounded memory", async () => {
    const ws = workspace();
    const url = await wireHttp("json-big-chunked", 64 * MIB + 1);
    const run = startCli(["add", "remote", "--tools-only", "--url", url], { cwd: ws.dir });
    const started = Date.now();
    // VmHWM is the process's peak resident memory so far; the last reading is its peak.
    let peakKib = 0;
    const poll = setInterval(() => {
      try {
        const status = readFileSync(`/proc/${run.child.pid}/status`, "utf8");
        peakKib = Math.max(peakKib, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0));
      } catch {
        // exited
      }
    }, 10);
    const r = await run.done;
    clearInterval(poll);
    failsWith(r, "remote", /tools\/list page 1: the server sent a message larger than 64 MiB/);
    assert.ok(Date.now() - started < 20_000, `took ${Date.now() - started} ms`);
    // Reading the whole body and parsing it (the old way) peaks near 600 MiB.
    assert.ok(peakKib > 0 && peakKib < 350 * 1024, `peak RSS ${peakKib} KiB`);
  });

  it("--max-message-mib takes a whole number from 1 to 256", () => {
    const ws = workspace();
    for (const bad of ["0", "1.5", "abc", "257", "-1", ""]) {
      const r = runCli(["verify", `--max-message-mib=${bad}`], { cwd: ws.dir });
      assert.equal(r.code, 2, bad);
      assert.equal(
        r.stderr,
        `contractpin: --max-message-mib takes a whole number from 1 to 256, not '${bad}'\n`,
      );
    }
    const help = runCli(["verify", "--help"]);
    assert.match(help.stdout, /--max-message-mib N {2}refuse a server message/);
  });
});

describe("one response per request contractpin sent", () => {
  it("stdio: two responses to the tools/list request (the second adds a tool): exit 1", () => {
    const r = addStdio(workspace(), "duplicate");
    failsWith(r, "fake", /tools\/list page 1: the server sent two responses to request id \d+/);
  });

  it("HTTP: two SSE events answering the same request: exit 1", async () => {
    const r = addHttp(workspace(), await wireHttp("sse-duplicate"));
    failsWith(r, "remote", /tools\/list page 1: the server sent two responses to request id \d+/);
  });

  it("HTTP: a JSON batch answering the same request twice: exit 1", async () => {
    const r = addHttp(workspace(), await wireHttp("batch-duplicate"));
    failsWith(r, "remote", /tools\/list page 1: the server sent two responses to request id \d+/);
  });

  it("stdio: a response to a request not yet sent (the next tools/list) is never taken for its answer: exit 1", () => {
    const r = addStdio(workspace(), "presend");
    failsWith(r, "fake", /the server sent a response to id \d+, which contractpin never sent/);
  });

  it("an error response with id null answers no request: skipped, the server is read", () => {
    const ws = workspace();
    const r = addStdio(ws, "null-id-error");
    assert.equal(r.code, 0, r.stderr);
    const expected = pythonDigest(ws.dump("expected.json", TOOLS)) as { digest: string };
    assert.equal(ws.lockJson().servers["fake"]!["digest"], expected.digest);
  });

  it("HTTP: a response to a request not yet sent, in a batch: exit 1", async () => {
    const r = addHttp(workspace(), await wireHttp("presend"));
    failsWith(r, "remote", /the server sent a response to id \d+, which contractpin never sent/);
  });
});

describe("a stray response, which no request contractpin sent can be taken for, is skipped", () => {
  const warning = (name: string, id: string) =>
    `contractpin: warning: server ${name}: the server sent a response to id ${id}, ` +
    "which answers no request contractpin sent, ignored";

  /** Asserts the server was read, its tools pinned as served, and stderr is exactly `lines`. */
  function readWithWarnings(
    ws: Workspace,
    name: string,
    r: { code: number | null; stderr: string },
    lines: string[],
  ) {
    assert.equal(r.code, 0, r.stderr);
    const expected = pythonDigest(ws.dump("expected.json", TOOLS)) as { digest: string };
    assert.equal(ws.lockJson().servers[name]!["digest"], expected.digest);
    assert.deepEqual(r.stderr.trimEnd().split("\n"), lines);
  }

  it('stdio: the server answers contractpin\'s answer to its own ping with an error of id "srv-ping-0": one warning, read', () => {
    const ws = workspace();
    readWithWarnings(ws, "fake", addStdio(ws, "srv-ping"), [warning("fake", '"srv-ping-0"')]);
  });

  it("HTTP: the same error in an SSE event of the tools/list stream: one warning, read", async () => {
    const ws = workspace();
    readWithWarnings(ws, "remote", addHttp(ws, await wireHttp("srv-ping")), [
      warning("remote", '"srv-ping-0"'),
    ]);
  });

  it("HTTP: the same error as the body answering contractpin's POST of its answer: one warning, read", async () => {
    const ws = workspace();
    readWithWarnings(ws, "remote", addHttp(ws, await wireHttp("srv-ping-json")), [
      warning("remote", '"srv-ping-0"'),
    ]);
  });

  it("stdio: many strays: their ids escaped and shortened, five warnings, then silence", () => {
    const ws = workspace();
    readWithWarnings(ws, "fake", addStdio(ws, "stray-flood"), [
      warning("fake", '"srv-ping-0"'),
      warning("fake", '"\\u001b[2J\\u202eevil\\u202c"'),
      warning("fake", "-1"),
      warning("fake", "2.5"),
      warning("fake", `"${"y".repeat(40)}..."`) + " (further such responses are ignored silently)",
    ]);
  });

  it('stdio: an answer whose id only loosely equals the request\'s ("2" for 2) is no stray: exit 1', () => {
    const r = addStdio(workspace(), "loose-id");
    failsWith(
      r,
      "fake",
      /tools\/list page 1: the server sent a response to id "\d+", which contractpin never sent \(the MCP library takes it for the answer to request \d+\)/,
    );
  });

  it('stdio: a second answer to a request already answered, under a loosely equal id (" 1" for 1): exit 1', () => {
    const r = addStdio(workspace(), "loose-answered");
    failsWith(
      r,
      "fake",
      /the server sent a response to id " \d+", which contractpin never sent \(the MCP library takes it for the answer to request \d+\)/,
    );
  });
});

describe("a stdio server that logs to stdout", () => {
  const warning =
    "contractpin: warning: server fake: the server wrote a line that is not JSON on stdout, ignored: ";

  it("its log lines are skipped with a sanitised warning, and its tools are pinned", () => {
    const ws = workspace();
    const r = addStdio(ws, "log-stdout");
    assert.equal(r.code, 0, r.stderr);
    const expected = pythonDigest(ws.dump("expected.json", TOOLS)) as { digest: string };
    assert.equal(ws.lockJson().servers["fake"]!["digest"], expected.digest);
    assert.equal(
      r.stderr,
      `${warning}"Server starting on stdio..."\n` +
        `${warning}"\\u001b[2J\\u001b[31mready\\u001b[0m \\u202eevil\\u202c done"\n` +
        `${warning}"handling tools/list"\n`,
    );
  });

  it("a long line is shortened, and after five warnings the rest are silent", () => {
    const r = addStdio(workspace(), "log-stdout-flood");
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stderr.trimEnd().split("\n");
    assert.deepEqual(lines, [
      `${warning}"${"z".repeat(100)}"...`,
      `${warning}"log line 1"`,
      `${warning}"log line 2"`,
      `${warning}"log line 3"`,
      `${warning}"log line 4" (further such lines are ignored silently)`,
    ]);
  });

  it("a line that is JSON but not strict JSON still fails the server: 1e400", () => {
    const r = addStdio(workspace(), "number-overflow");
    failsWith(r, "fake", /the server sent a message that is not strict JSON: number 1e400 .*/);
  });

  it("a line that is JSON but not strict JSON still fails the server: invalid UTF-8", () => {
    const r = addStdio(workspace(), "invalid-utf8");
    failsWith(r, "fake", /the server sent a message that is not strict JSON: invalid UTF-8 .*/);
  });
});
