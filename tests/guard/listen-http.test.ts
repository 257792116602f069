// contractpin guard --listen: the guard as a Streamable HTTP server on
// loopback, with the official client's StreamableHTTPClientTransport. Against
// server-everything (stdio), everything gives the same results as a direct
// connection, except that the tools the lock does not pin (those of a client
// that can sample) are cut from the list and their calls refused; against the
// fake server, drifted tools are withheld and their calls refused without
// reaching it; the listener refuses what it must (a
// non-loopback address, a foreign Origin or Host, a body over the limit, a
// second session) and leaves no process behind.
import { Client, ProtocolError, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { tempDir } from "../helpers/cleanup.js";
import { oneLine, runCli } from "../helpers/cli.js";
import { SERVERS } from "../helpers/servers.js";
import { driftMidSession } from "./client-scenarios.js";
import { INIT, raw } from "./listen-raw.js";
import {
  allPages,
  assert,
  eventually,
  fakeSetup,
  isRunning,
  listening,
  officialClient,
  readPid,
  received,
  stderrShows,
  toolNames,
  type Listening,
} from "./guard-harness.js";

async function httpClient(url: string, capabilities = {}): Promise<Client> {
  const client = new Client({ name: "listen-test", version: "1.0.0" }, { capabilities });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/** A direct stdio client, its server killed at the end of the file should the test fail first. */
async function stdioClient(argv: string[], capabilities = {}): Promise<Client> {
  return (await officialClient(argv, { capabilities })).client;
}

describe("server-everything through the guard's HTTP listener, with the official client", () => {
  const dir = tempDir("contractpin-listen-everything-");
  const lock = join(dir, "contractpin.lock");
  let guard: Listening;
  let direct: Client;
  let guarded: Client;

  before(async () => {
    const argv = [process.execPath, SERVERS.everything];
    const added = runCli(["add", "everything", "--lock", lock, "--no-snapshot", "--", ...argv]);
    assert.equal(added.code, 0, added.stderr);
    guard = await listening(["everything", "--lock", lock]);
    direct = await stdioClient(argv);
    guarded = await httpClient(guard.url);
  });
  after(async () => {
    await direct?.close();
    await guarded?.close();
    await guard?.stop();
  });

  it("initializes with the same capabilities and lists every page alike", async () => {
    assert.deepEqual(guarded.getServerCapabilities(), direct.getServerCapabilities());
    assert.deepEqual(guarded.getServerVersion(), direct.getServerVersion());
    const pages = await allPages(guarded);
    assert.deepEqual(pages, await allPages(direct));
    assert.ok(toolNames(pages).length >= 13);
  });

  it("calls tools, reads a resource, gets a prompt and pings alike", async () => {
    for (const [name, args] of [
      ["echo", { message: "through the listener" }],
      ["get-sum", { a: 2, b: 40 }],
      ["get-structured-content", { location: "New York" }],
    ] as const) {
      const viaGuard = await guarded.callTool({ name, arguments: args });
      assert.deepEqual(viaGuard, await direct.callTool({ name, arguments: args }), name);
    }
    const resources = await guarded.listResources();
    assert.deepEqual(resources, await direct.listResources());
    const uri = resources.resources[0]!.uri;
    assert.deepEqual(await guarded.readResource({ uri }), await direct.readResource({ uri }));
    const prompts = await guarded.listPrompts();
    assert.deepEqual(prompts, await direct.listPrompts());
    const simple = prompts.prompts.find((p) => (p.arguments ?? []).every((a) => !a.required))!;
    assert.deepEqual(
      await guarded.getPrompt({ name: simple.name }),
      await direct.getPrompt({ name: simple.name }),
    );
    assert.deepEqual(await guarded.ping(), await direct.ping());
  });

  it("says only where it listens on stderr when every tool matches", () => {
    assert.equal(guard.stderr(), `contractpin: guard: listening on ${guard.url}\n`);
    assert.match(guard.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  });

  // Last: it ends the session above for one of its own, and adds lines to stderr.
  it(
    "withholds what the lock does not pin: a client that can sample sees only the pinned tools",
    { timeout: 30_000 },
    async () => {
      // The lock pins the 13 tools of a client with no capabilities; this client's adds more.
      const capabilities = { sampling: {}, elicitation: {} };
      const wider = await stdioClient([process.execPath, SERVERS.everything], capabilities);
      // One session at a time: the session above ends, and this client begins one with its own server.
      await (guarded.transport as StreamableHTTPClientTransport).terminateSession();
      await guarded.close();
      const seen = await httpClient(guard.url, capabilities);
      try {
        const pinned = toolNames(await allPages(direct));
        const served = toolNames(await allPages(wider));
        assert.ok(served.includes("trigger-sampling-request"));
        assert.deepEqual(
          toolNames(await allPages(seen)),
          served.filter((name) => pinned.includes(name)),
        );
        await assert.rejects(
          seen.callTool({ name: "trigger-sampling-request", arguments: {} }),
          (err: unknown) =>
            err instanceof ProtocolError &&
            err.code === -32602 &&
            (err.data as { reason?: string }).reason === "unpinned" &&
            (err.data as { by?: string }).by === "contractpin guard",
        );
        await stderrShows(
          guard.stderr,
          /withheld tool "trigger-sampling-request": unpinned/,
          /refused tools\/call "trigger-sampling-request": unpinned/,
        );
      } finally {
        await wider.close();
        await seen.close();
      }
    },
  );
});

describe("a server's sampling request through the listener", () => {
  it("reaches the client, and its answer the server, as directly", async () => {
    const dir = tempDir("contractpin-listen-sampling-");
    const lock = join(dir, "contractpin.lock");
    const argv = [process.execPath, SERVERS.everything];
    assert.equal(runCli(["add", "everything", "--lock", lock, "--", ...argv]).code, 0);
    // With sampling declared, server-everything serves tools the lock (read without) does not pin.
    const guard = await listening(["everything", "--lock", lock, "--allow-new"]);
    const results: unknown[] = [];
    for (const client of [
      await stdioClient(argv, { sampling: {} }),
      await httpClient(guard.url, { sampling: {} }),
    ]) {
      const asked: unknown[] = [];
      client.setRequestHandler("sampling/createMessage", (req) => {
        asked.push(req.params.messages);
        return {
          model: "test-model",
          role: "assistant",
          content: { type: "text", text: "sampled by the test" },
        };
      });
      const args = { name: "trigger-sampling-request", arguments: { prompt: "hi", maxTokens: 5 } };
      results.push({ result: await client.callTool(args), asked });
      await client.close();
    }
    assert.deepEqual(results[1], results[0]);
    assert.match(JSON.stringify(results[1]), /sampled by the test/);
    await guard.stop();
  });
});

describe("the fake server through the listener", () => {
  it("withholds a drifted tool, refuses its call without reaching the server, and relays list_changed and roots/list", async () => {
    const { dir, lock } = fakeSetup();
    const guard = await listening(["fake", "--lock", lock]);
    const client = new Client(
      { name: "listen-test", version: "1.0.0" },
      { capabilities: { roots: { listChanged: false } } },
    );
    const transport = new StreamableHTTPClientTransport(new URL(guard.url));
    await client.connect(transport);
    client.setRequestHandler("roots/list", () => ({ roots: [{ uri: "file:///listen-test" }] }));
    await driftMidSession(client);
    await client.callTool({ name: "mutate", arguments: { what: "ask" } });
    await eventually(
      () => received(dir).some((m) => m.id === "srv-1" && m.method === undefined),
      "the client's answer to roots/list reached the server",
    );
    const answer = received(dir).find((m) => m.id === "srv-1")! as { result?: unknown };
    assert.deepEqual(answer.result, { roots: [{ uri: "file:///listen-test" }] });
    assert.deepEqual(
      received(dir)
        .filter((m) => m.method === "tools/call")
        .map((m) => m.params.name),
      ["mutate", "mutate"],
    );
    await stderrShows(
      guard.stderr,
      /guard: server fake: refused tools\/call "alpha": drifted \(pinned sha256:/,
    );

    // DELETE ends the session, and with it the server and its process group.
    const pids = [readPid(dir, "server.pid")!, readPid(dir, "helper.pid")!];
    assert.ok(pids.every(isRunning));
    await transport.terminateSession();
    await client.close();
    await eventually(() => !pids.some(isRunning), "the server and its helper have ended");
    const { code, stderr } = await guard.stop();
    assert.equal(code, 2);
    assert.match(stderr, /interrupted by SIGTERM\n$/);
  });

  it("withholds an unpinned tool from the start and refuses its call", async () => {
    const { dir, lock } = fakeSetup();
    writeFileSync(join(dir, "start"), "add");
    const guard = await listening(["fake", "--lock", lock]);
    const client = await httpClient(guard.url);
    assert.deepEqual(toolNames(await allPages(client)), ["alpha", "beta", "mutate"]);
    await assert.rejects(
      client.callTool({ name: "gamma", arguments: {} }),
      (err: unknown) =>
        err instanceof ProtocolError &&
        err.code === -32602 &&
        (err.data as { reason?: string }).reason === "unpinned",
    );
    assert.ok(!received(dir).some((m) => m.method === "tools/call"));
    await client.close();
    await guard.stop();
  });

  it("serves one session at a time, and a new one once the old is ended", async () => {
    const { dir, lock } = fakeSetup();
    const guard = await listening(["fake", "--lock", lock]);
    const first = await httpClient(guard.url);
    await first.listTools();
    const firstPid = readPid(dir, "server.pid")!;
    // The first client holds its GET stream open: a second initialize is refused.
    await assert.rejects(httpClient(guard.url), (err: Error) => {
      assert.match(err.message, /serves one client session at a time, and another is open/);
      assert.equal((err as Error & { data?: { status?: number } }).data?.status, 409);
      return true;
    });
    await first.close();
    // Once its connections are closed, a new client ends it and starts a new server.
    let second: Client | undefined;
    for (let i = 0; i < 50 && second === undefined; i++) {
      second = await httpClient(guard.url).catch(async () => {
        await new Promise((r) => setTimeout(r, 100));
        return undefined;
      });
    }
    assert.ok(second !== undefined, "a second session could start");
    assert.deepEqual(
      (await second.listTools()).tools.map((t) => t.name),
      ["alpha", "beta", "mutate"],
    );
    assert.ok(!isRunning(firstPid), "the first session's server has ended");
    assert.notEqual(readPid(dir, "server.pid"), firstPid);
    await second.close();
    const pid = readPid(dir, "server.pid")!;
    await guard.stop();
    assert.ok(!isRunning(pid), "SIGTERM ended the server");
  });

  it("gives the client errors, never tools, when the lock does not pin the server", async () => {
    const { lock } = fakeSetup();
    const guard = await listening(["nosuch", "--lock", lock]);
    await assert.rejects(httpClient(guard.url), /no server named 'nosuch'/);
    const { stderr } = await guard.stop();
    assert.match(stderr, /contractpin: guard: no server named 'nosuch' in .*; it pins: fake/);
  });

  it("listens on [::1]", async () => {
    const { lock } = fakeSetup();
    const guard = await listening(["fake", "--lock", lock], "[::1]:0");
    assert.match(guard.url, /^http:\/\/\[::1\]:\d+\/mcp$/);
    const client = await httpClient(guard.url);
    assert.equal((await client.listTools()).tools.length, 3);
    await client.close();
    await guard.stop();
  });
});

const POST_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

describe("the listener's HTTP rules", () => {
  const { lock } = fakeSetup();
  let guard: Listening;
  before(async () => {
    guard = await listening(["fake", "--lock", lock, "--max-message-mib", "1"]);
  });
  after(async () => {
    await guard?.stop();
  });

  it("refuses a request whose Origin is not loopback (403), and takes a loopback one", async () => {
    const bad = await raw(guard.url, {
      headers: { ...POST_HEADERS, origin: "http://evil.example" },
      body: INIT,
    });
    assert.equal(bad.status, 403);
    assert.match(JSON.parse(bad.body).error.message, /Origin is not a loopback origin/);
    const get = await raw(guard.url, {
      method: "GET",
      headers: { origin: "null", accept: "text/event-stream" },
    });
    assert.equal(get.status, 403);
    const good = await raw(guard.url, {
      headers: { ...POST_HEADERS, accept: "application/json", origin: "http://localhost:5173" },
      body: INIT,
    });
    assert.equal(good.status, 200);
    assert.equal(JSON.parse(good.body).result.serverInfo.name, "guard-fake");
    assert.match(String(good.headers["mcp-session-id"]), /^[0-9a-f-]{36}$/);
    const id = String(good.headers["mcp-session-id"]);
    assert.equal(
      (await raw(guard.url, { method: "DELETE", headers: { "mcp-session-id": id } })).status,
      200,
    );
  });

  it("refuses a Host that is not loopback (DNS rebinding, 403)", async () => {
    const r = await raw(guard.url, {
      headers: { ...POST_HEADERS, host: "evil.example:80" },
      body: INIT,
    });
    assert.equal(r.status, 403);
  });

  it("refuses a body over --max-message-mib (413) and a body that is not strict JSON (400)", async () => {
    const big = Buffer.alloc(1024 * 1024 + 10, 0x20);
    const r = await raw(guard.url, { headers: POST_HEADERS, body: big });
    assert.equal(r.status, 413);
    assert.match(JSON.parse(r.body).error.message, /larger than 1048576 bytes/);
    const dup = await raw(guard.url, {
      headers: POST_HEADERS,
      body: '{"jsonrpc":"2.0","id":1,"method":"initialize","method":"tools/list"}',
    });
    assert.equal(dup.status, 400);
    assert.equal(JSON.parse(dup.body).error.code, -32700);
  });

  it("passes a body with line breaks to a stdio server as one line", async () => {
    const pretty = JSON.stringify(JSON.parse(INIT), null, 2);
    assert.ok(pretty.includes("\n"));
    const r = await raw(guard.url, {
      headers: { ...POST_HEADERS, accept: "application/json" },
      body: pretty,
    });
    assert.equal(r.status, 200, r.body);
    assert.equal(JSON.parse(r.body).id, 1);
    assert.equal(JSON.parse(r.body).result.serverInfo.name, "guard-fake");
    const id = String(r.headers["mcp-session-id"]);
    await raw(guard.url, { method: "DELETE", headers: { "mcp-session-id": id } });
  });

  it("asks for a session id (400) and knows none it did not give (404)", async () => {
    const list = '{"jsonrpc":"2.0","id":2,"method":"tools/list"}';
    assert.equal((await raw(guard.url, { headers: POST_HEADERS, body: list })).status, 400);
    const r = await raw(guard.url, {
      headers: { ...POST_HEADERS, "mcp-session-id": "nope" },
      body: list,
    });
    assert.equal(r.status, 404);
  });
});

describe("contractpin guard --listen arguments", () => {
  it("refuses an address that is not loopback without --listen-any", () => {
    const { lock } = fakeSetup();
    const r = runCli(["guard", "fake", "--lock", lock, "--listen", "0.0.0.0:0"]);
    assert.equal(r.code, 2);
    assert.ok(oneLine(r.stderr), r.stderr);
    assert.equal(
      r.stderr,
      "contractpin: --listen 0.0.0.0:0 is not a loopback address: the guard listens on 127.0.0.1 or [::1] unless --listen-any is given\n",
    );
  });

  it("refuses an address it cannot read, and --listen-any alone", () => {
    const r = runCli(["guard", "fake", "--listen", "8080"]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^contractpin: --listen takes HOST:PORT .*not '8080'\n$/);
    const any = runCli(["guard", "fake", "--listen-any"]);
    assert.equal(any.code, 2);
    assert.match(any.stderr, /^contractpin: --listen-any needs --listen HOST:PORT/);
  });

  it("listens on any address with --listen-any", async () => {
    const { lock } = fakeSetup();
    const guard = await listening(["fake", "--lock", lock, "--listen-any"], "0.0.0.0:0");
    assert.match(guard.url, /^http:\/\/0\.0\.0\.0:\d+\/mcp$/);
    await guard.stop();
  });
});
