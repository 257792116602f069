// contractpin guard against a fake stdio server (guard-fake-server.mjs),
// through the built CLI, with a line-level client: exact bytes, paging,
// withheld and refused tools, drift and additions mid-session, a duplicate
// key, a crash, and a lock that goes away.
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import {
  assert,
  digestsOf,
  eventLines,
  fakeSetup,
  isRunning,
  RAW,
  RawClient,
  readPid,
  received,
  sent,
} from "./guard-harness.js";

const callsOf = (dir: string, name: string) =>
  received(dir).filter((m) => m.method === "tools/call" && m.params?.name === name);

describe("contractpin guard relays a stdio server", () => {
  it("passes a matching list as the exact bytes served, page by page, and advertises listChanged", async () => {
    const { dir, lock } = fakeSetup();
    const client = new RawClient(["fake", "--lock", lock]);
    const init = await client.initialize();
    assert.deepEqual(init.result.capabilities, { tools: { listChanged: true } });
    client.send({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });
    const page1 = await client.responseLine(1);
    client.send({ jsonrpc: "2.0", id: 2, method: "tools/list", params: { cursor: "p2" } });
    const page2 = await client.responseLine(2);
    const served = sent(dir).filter((l) => l.includes('"tools":['));
    assert.equal(page1, served[0]);
    assert.equal(page2, served[1]);
    assert.equal(
      page1,
      `{"jsonrpc":"2.0","id":1,"result":{"tools":[${RAW.alpha},${RAW.beta}],"nextCursor":"p2","_meta":{"x":1.50}}}`,
    );
    const call = await client.request(3, "tools/call", { name: "alpha", arguments: { n: 1 } });
    assert.deepEqual(call.result, { content: [{ type: "text", text: "called alpha" }] });
    assert.equal((await client.close()).code, 0);
    assert.equal(client.stderr, "");
  });

  it("withholds an unpinned tool from the served bytes, keeps nextCursor, and refuses its call", async () => {
    const { dir, lock } = fakeSetup([RAW.alpha, RAW.mutate]);
    const beta = digestsOf(dir, [RAW.beta]).tools["beta"]!.digest;
    const client = new RawClient(["fake", "--lock", lock, "--log", join(dir, "guard.jsonl")]);
    await client.initialize();
    client.send({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    const page1 = await client.responseLine(1);
    assert.equal(
      page1,
      `{"jsonrpc":"2.0","id":1,"result":{"tools":[${RAW.alpha}],"nextCursor":"p2","_meta":{"x":1.50}}}`,
    );
    const refused = await client.request(2, "tools/call", { name: "beta", arguments: {} });
    assert.deepEqual(refused.error, {
      code: -32602,
      message:
        "Unknown tool: beta; contractpin guard withholds it (unpinned): run 'contractpin verify fake' to see why",
      data: { tool: "beta", reason: "unpinned", live: beta, by: "contractpin guard" },
    });
    assert.deepEqual(callsOf(dir, "beta"), []);
    assert.equal((await client.close()).code, 0);
    assert.deepEqual(eventLines(client.stderr), [
      `contractpin: guard: server fake: withheld tool "beta": unpinned (not in the lock; live ${beta.slice(0, 19)}...)`,
      `contractpin: guard: server fake: refused tools/call "beta": unpinned (not in the lock; live ${beta.slice(0, 19)}...)`,
    ]);
    const log = readFileSync(join(dir, "guard.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    assert.deepEqual(
      log.map(({ time, ...rest }) => (assert.match(time, /^\d{4}-\d\d-\d\dT/), rest)),
      [
        { event: "withheld", server: "fake", tool: "beta", reason: "unpinned", live: beta },
        { event: "refused", server: "fake", tool: "beta", reason: "unpinned", live: beta },
      ],
    );
  });

  it("admits unpinned tools with --allow-new", async () => {
    const { dir, lock } = fakeSetup([RAW.alpha, RAW.mutate]);
    const client = new RawClient(["fake", "--lock", lock, "--allow-new"]);
    await client.initialize();
    const call = await client.request(1, "tools/call", { name: "beta", arguments: {} });
    assert.deepEqual(call.result, { content: [{ type: "text", text: "called beta" }] });
    assert.equal(callsOf(dir, "beta").length, 1);
    assert.equal((await client.close()).code, 0);
  });

  it("refuses a call for a tool never listed after listing every page itself", async () => {
    const { dir, lock } = fakeSetup();
    const client = new RawClient(["fake", "--lock", lock]);
    await client.initialize();
    const hidden = await client.request(1, "tools/call", { name: "hidden", arguments: {} });
    assert.equal(hidden.error.code, -32602);
    assert.equal(hidden.error.message, "Unknown tool: hidden");
    assert.equal(hidden.error.data.reason, "unlisted");
    const lists = received(dir).filter((m) => m.method === "tools/list");
    assert.deepEqual(
      lists.map((m) => m.params),
      [{}, { cursor: "p2" }],
    );
    assert.deepEqual(callsOf(dir, "hidden"), []);
    // The first call for mutate: known from that full list, forwarded with its id and bytes.
    client.send(
      '{"jsonrpc":"2.0","id":"x-1","method":"tools/call","params":{"name":"mutate","arguments":{"what":"none"}}}',
    );
    assert.match(await client.responseLine("x-1"), /called mutate/);
    assert.equal(received(dir).at(-1)!.id, "x-1");
    assert.equal((await client.close()).code, 0);
  });

  it("withholds a tool that drifted after list_changed, and refuses its call without reaching the server", async () => {
    const { dir, lock, digests } = fakeSetup();
    const live = digestsOf(dir, [RAW.alphaDrifted]).tools["alpha"]!.digest;
    const pinned = digests.tools["alpha"]!.digest;
    const client = new RawClient(["fake", "--lock", lock]);
    await client.initialize();
    await client.request(1, "tools/list");
    await client.request(2, "tools/call", { name: "mutate", arguments: { what: "drift" } });
    await client.until(
      () => client.lines.some((l) => l.includes("notifications/tools/list_changed")),
      "list_changed",
    );
    const page1 = await client.request(3, "tools/list");
    assert.deepEqual(
      page1.result.tools.map((t: { name: string }) => t.name),
      ["beta"],
    );
    assert.equal(page1.result.nextCursor, "p2");
    const refused = await client.request(4, "tools/call", { name: "alpha", arguments: {} });
    assert.deepEqual(refused.error, {
      code: -32602,
      message:
        "Unknown tool: alpha; contractpin guard withholds it (drifted): run 'contractpin verify fake' to see why",
      data: { tool: "alpha", reason: "drifted", pinned, live, by: "contractpin guard" },
    });
    assert.ok(!JSON.stringify(refused).includes("id_rsa"));
    assert.deepEqual(callsOf(dir, "alpha"), []);
    assert.equal((await client.close()).code, 0);
    const lines = eventLines(client.stderr);
    assert.equal(
      lines.at(-1),
      `contractpin: guard: server fake: refused tools/call "alpha": drifted (pinned ${pinned.slice(0, 19)}..., live ${live.slice(0, 19)}...)`,
    );
    assert.ok(
      lines.includes(
        `contractpin: guard: server fake: withheld tool "alpha": drifted (pinned ${pinned.slice(0, 19)}..., live ${live.slice(0, 19)}...)`,
      ),
    );
  });

  it("answers the whole list with an error under --on-drift=block", async () => {
    const { dir, lock } = fakeSetup();
    writeFileSync(join(dir, "start"), "drift");
    const client = new RawClient(["fake", "--lock", lock, "--on-drift=block"]);
    await client.initialize();
    const list = await client.request(1, "tools/list");
    assert.equal(list.result, undefined);
    assert.equal(list.error.code, -32603);
    assert.match(
      list.error.message,
      /^contractpin guard: the server's tools do not match the lock: alpha \(drifted\)$/,
    );
    assert.equal((await client.close()).code, 0);
  });

  it("withholds a tool added mid-session and refuses its call", async () => {
    const { dir, lock } = fakeSetup();
    const client = new RawClient(["fake", "--lock", lock]);
    await client.initialize();
    await client.request(1, "tools/call", { name: "mutate", arguments: { what: "add" } });
    await client.until(() => client.lines.some((l) => l.includes("list_changed")), "list_changed");
    const page2 = await client.request(2, "tools/list", { cursor: "p2" });
    assert.deepEqual(
      page2.result.tools.map((t: { name: string }) => t.name),
      ["mutate"],
    );
    const refused = await client.request(3, "tools/call", { name: "gamma", arguments: {} });
    assert.equal(
      refused.error.message,
      "Unknown tool: gamma; contractpin guard withholds it (unpinned): run 'contractpin verify fake' to see why",
    );
    assert.equal(refused.error.data.reason, "unpinned");
    assert.deepEqual(callsOf(dir, "gamma"), []);
    assert.equal((await client.close()).code, 0);
  });

  it("answers a tools/list with a duplicate key with an error, never a partly trusted list", async () => {
    const { lock } = fakeSetup();
    const client = new RawClient(["fake", "--lock", lock]);
    await client.initialize();
    await client.request(1, "tools/list");
    await client.request(2, "tools/call", { name: "mutate", arguments: { what: "dupkey" } });
    const list = await client.request(3, "tools/list");
    assert.equal(list.result, undefined);
    assert.equal(list.error.code, -32603);
    assert.match(
      list.error.message,
      /^contractpin guard: the server sent a message that is not strict JSON: .*duplicate/i,
    );
    // stderr is another pipe than the answer's: its line may arrive a moment later.
    await client.until(
      () =>
        /contractpin: guard: server fake: dropped a message that is not strict JSON: .*duplicate/i.test(
          client.stderr,
        ),
      "the stderr line about the message that is not strict JSON",
    );
    assert.equal((await client.close()).code, 0);
  });

  it("refuses a client message that is not strict JSON instead of forwarding it", async () => {
    const { dir, lock } = fakeSetup();
    const client = new RawClient(["fake", "--lock", lock, "--allow-new"]);
    await client.initialize();
    client.send(
      '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"alpha","name":"beta"}}',
    );
    const reply = JSON.parse(await client.responseLine(7));
    assert.equal(reply.error.code, -32600);
    assert.match(reply.error.message, /not strict JSON/);
    assert.deepEqual(
      received(dir).filter((m) => m.method === "tools/call"),
      [],
    );
    assert.equal((await client.close()).code, 0);
  });

  it("relays a request of the server to the client and the client's answer back, ids unchanged", async () => {
    const { dir, lock } = fakeSetup();
    const client = new RawClient(["fake", "--lock", lock]);
    await client.initialize();
    await client.request(1, "tools/call", { name: "mutate", arguments: { what: "ask" } });
    const asked = await client.until(
      () => client.lines.find((l) => l.includes('"roots/list"')),
      "the server's request",
    );
    assert.equal(asked, '{"jsonrpc":"2.0","id":"srv-1","method":"roots/list","params":{}}');
    client.send('{"jsonrpc":"2.0","id":"srv-1","result":{"roots":[{"uri":"file:///w"}]}}');
    const answer = await client.until(
      () => received(dir).find((m) => m.id === "srv-1"),
      "the answer at the server",
    );
    assert.deepEqual(answer, {
      jsonrpc: "2.0",
      id: "srv-1",
      result: { roots: [{ uri: "file:///w" }] },
    });
    assert.equal((await client.close()).code, 0);
  });

  it("checks each member of a client's batch on its own", async () => {
    const { dir, lock } = fakeSetup([RAW.alpha, RAW.mutate]);
    const client = new RawClient(["fake", "--lock", lock]);
    await client.initialize();
    client.send(
      '[{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"beta","arguments":{}}},' +
        '{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"alpha","arguments":{}}}]',
    );
    const refused = JSON.parse(await client.responseLine(5));
    assert.equal(
      refused.error.message,
      "Unknown tool: beta; contractpin guard withholds it (unpinned): run 'contractpin verify fake' to see why",
    );
    assert.match(await client.responseLine(6), /called alpha/);
    assert.deepEqual(callsOf(dir, "beta"), []);
    assert.equal(callsOf(dir, "alpha").length, 1);
    assert.equal((await client.close()).code, 0);
  });

  it("never forwards a tools/call without a usable id, and logs each it drops", async () => {
    const { dir, lock } = fakeSetup();
    const log = join(dir, "guard.jsonl");
    const client = new RawClient(["fake", "--lock", lock, "--allow-new", "--log", log]);
    await client.initialize();
    client.send({ jsonrpc: "2.0", method: "tools/call", params: { name: "alpha", arguments: {} } });
    client.send({
      jsonrpc: "2.0",
      id: null,
      method: "tools/call",
      params: { name: "alpha", arguments: {} },
    });
    const reply = JSON.parse(await client.responseLine(null as never));
    assert.equal(reply.error.code, -32600);
    await client.request(1, "ping");
    assert.deepEqual(callsOf(dir, "alpha"), []);
    assert.equal((await client.close()).code, 0);
    const line =
      "contractpin: guard: server fake: dropped a tools/call without a string or number id";
    assert.deepEqual(
      client.stderr.split("\n").filter((l) => l.includes(" dropped ")),
      [line, line],
    );
    const what = "a tools/call without a string or number id";
    assert.deepEqual(
      readFileSync(log, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l))
        .map(({ time, ...rest }) => (assert.match(time, /^\d{4}-\d\d-\d\dT/), rest)),
      [
        { event: "dropped", server: "fake", from: "client", what },
        { event: "dropped", server: "fake", from: "client", what },
      ],
    );
  });

  it("drops a client message over --max-message-mib with one stderr line and one log event, and goes on", async () => {
    const { dir, lock } = fakeSetup();
    const log = join(dir, "guard.jsonl");
    const client = new RawClient(["fake", "--lock", lock, "--max-message-mib", "1", "--log", log]);
    await client.initialize();
    const big = { jsonrpc: "2.0", id: 1, method: "ping", params: { pad: "x".repeat(1024 * 1024) } };
    client.send(big);
    assert.deepEqual((await client.request(2, "ping")).result, {});
    // A message of exactly the limit passes.
    const head = '{"jsonrpc":"2.0","id":3,"method":"ping","params":{"pad":"';
    const exact = `${head}${"x".repeat(1024 * 1024 - head.length - 3)}"}}`;
    assert.equal(Buffer.byteLength(exact), 1024 * 1024);
    client.send(exact);
    assert.deepEqual(JSON.parse(await client.responseLine(3)).result, {});
    assert.equal((await client.close()).code, 0);
    assert.ok(
      !received(dir).some((m) => m.id === 1),
      "the message over the limit reached the server",
    );
    const what = "a client message larger than 1048576 bytes";
    assert.match(
      client.stderr,
      new RegExp(`^contractpin: guard: server fake: dropped ${what}$`, "m"),
    );
    const events = readFileSync(log, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .map(({ time, ...rest }) => (assert.match(String(time), /^\d{4}-\d\d-\d\dT/), rest));
    assert.deepEqual(events, [{ event: "dropped", server: "fake", from: "client", what }]);
  });

  it("answers pending requests when the server crashes, exits 1, and leaves no process behind", async () => {
    const { dir, lock } = fakeSetup();
    const client = new RawClient(["fake", "--lock", lock]);
    await client.initialize();
    const reply = await client.request(1, "tools/call", {
      name: "mutate",
      arguments: { what: "crash" },
    });
    assert.equal(reply.error.code, -32603);
    assert.match(reply.error.message, /^contractpin guard: server fake ended: .*3/);
    const { code } = await client.exited;
    assert.equal(code, 1);
    assert.match(client.stderr, /^contractpin: guard: server fake ended: .*3.*\n/m);
    assert.equal(isRunning(readPid(dir, "server.pid")!), false);
    assert.equal(isRunning(readPid(dir, "helper.pid")!), false);
  });

  it("fails closed when the lock is deleted while it runs", async () => {
    const { dir, lock } = fakeSetup();
    const client = new RawClient(["fake", "--lock", lock]);
    await client.initialize();
    const ok = await client.request(1, "tools/list");
    assert.equal(ok.result.tools.length, 2);
    rmSync(lock);
    const list = await client.request(2, "tools/list");
    assert.equal(list.error.code, -32603);
    assert.match(list.error.message, /cannot read the lock/);
    const call = await client.request(3, "tools/call", { name: "alpha", arguments: {} });
    assert.equal(call.error.code, -32603);
    assert.match(
      call.error.message,
      /^contractpin guard: cannot check tool alpha: .*cannot read the lock/,
    );
    assert.deepEqual(callsOf(dir, "alpha"), []);
    assert.equal((await client.close()).code, 0);
  });

  it("applies a lock edited while it runs to the next call of a tool admitted before", async () => {
    const { dir, lock } = fakeSetup();
    const client = new RawClient(["fake", "--lock", lock]);
    await client.initialize();
    const ok = await client.request(1, "tools/call", { name: "alpha", arguments: {} });
    assert.deepEqual(ok.result, { content: [{ type: "text", text: "called alpha" }] });
    // The same server, pinned without alpha.
    const pinned = JSON.parse(readFileSync(lock, "utf8"));
    const digests = digestsOf(dir, [RAW.beta, RAW.mutate]);
    writeFileSync(
      lock,
      JSON.stringify({ ...pinned, servers: { fake: { ...pinned.servers.fake, ...digests } } }),
    );
    const refused = await client.request(2, "tools/call", { name: "alpha", arguments: {} });
    assert.equal(
      refused.error.message,
      "Unknown tool: alpha; contractpin guard withholds it (unpinned): run 'contractpin verify fake' to see why",
    );
    assert.equal(refused.error.data.reason, "unpinned");
    assert.equal(callsOf(dir, "alpha").length, 1);
    assert.equal((await client.close()).code, 0);
  });

  it("answers with errors and exits 2 when the lock cannot be read at start", async () => {
    const { dir } = fakeSetup();
    const client = new RawClient(["fake", "--lock", join(dir, "missing.lock")]);
    const init = await client.request(0, "initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "x", version: "1" },
    });
    assert.equal(init.error.code, -32603);
    assert.match(init.error.message, /^contractpin guard: .*missing\.lock: cannot read the lock/);
    assert.equal((await client.close()).code, 2);
    assert.match(client.stderr, /^contractpin: guard: .*missing\.lock: cannot read the lock/);
  });

  it("a lock corrupt past the server's command (started while the rest is validated): errors, exit 2, the server ended, nothing of it relayed", async () => {
    const { dir, lock } = fakeSetup();
    // Valid JSON with a valid command, but a tool digest edited by hand.
    const text = readFileSync(lock, "utf8");
    const digest = /"digest":\s*"sha256:([0-9a-f]{64})"/.exec(text)![1]!;
    writeFileSync(lock, text.replace(digest, "f".repeat(64)));
    const client = new RawClient(["fake", "--lock", lock]);
    const init = await client.request(0, "initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "x", version: "1" },
    });
    assert.equal(init.error.code, -32603, JSON.stringify(init));
    assert.match(init.error.message, /^contractpin guard: .*contractpin\.lock: lock is corrupt/);
    const list = await client.request(1, "tools/list", {});
    assert.equal(list.error.code, -32603, JSON.stringify(list));
    assert.equal((await client.close()).code, 2);
    assert.match(client.stderr, /^contractpin: guard: .*contractpin\.lock: lock is corrupt/);
    // The client got the guard's two answers and nothing else.
    assert.deepEqual(
      client.lines.map((l) => (JSON.parse(l) as { id?: unknown }).id),
      [0, 1],
    );
    const pid = readPid(dir, "server.pid");
    assert.ok(pid === undefined || !isRunning(pid), "the server it started still runs");
  });

  it("answers with errors when the server is not in the lock (exit 2) or cannot be started (exit 1)", async () => {
    const { lock } = fakeSetup();
    const unknown = new RawClient(["other", "--lock", lock]);
    const r1 = await unknown.request(0, "initialize", {});
    assert.match(r1.error.message, /no server named 'other'/);
    assert.equal((await unknown.close()).code, 2);

    const { dir, lock: lock2 } = fakeSetup();
    const text = readFileSync(lock2, "utf8").replace(
      JSON.stringify(process.execPath),
      JSON.stringify(join(dir, "no-such-command")),
    );
    writeFileSync(lock2, text);
    const broken = new RawClient(["fake", "--lock", lock2]);
    const r2 = await broken.request(0, "initialize", {});
    assert.match(r2.error.message, /could not start/);
    assert.equal((await broken.close()).code, 1);
    assert.match(broken.stderr, /^contractpin: guard: server fake: could not start/m);
  });
});

describe("contractpin guard keeps its own accounting apart from the client's", () => {
  it("refuses a tools/list page that names a tool of an earlier page again", async () => {
    const { dir, lock } = fakeSetup();
    writeFileSync(join(dir, "start"), "twopage");
    const client = new RawClient(["fake", "--lock", lock]);
    await client.initialize();
    const page1 = await client.request(1, "tools/list");
    assert.deepEqual(
      page1.result.tools.map((t: { name: string }) => t.name),
      ["alpha", "beta"],
    );
    const page2 = await client.request(2, "tools/list", { cursor: "p2" });
    assert.equal(page2.result, undefined);
    assert.match(page2.error.message, /two tools are named "alpha" \(on different pages\)/);
    assert.ok(!JSON.stringify(page2).includes("id_rsa"));
    assert.equal((await client.close()).code, 0);
  });

  it("refuses a call it must list first when the full list names a tool on two pages", async () => {
    const { dir, lock } = fakeSetup();
    writeFileSync(join(dir, "start"), "twopage");
    const client = new RawClient(["fake", "--lock", lock]);
    await client.initialize();
    const call = await client.request(1, "tools/call", { name: "alpha", arguments: {} });
    assert.equal(call.result, undefined);
    assert.match(call.error.message, /^contractpin guard: cannot check tool alpha: .*"alpha"/);
    assert.deepEqual(callsOf(dir, "alpha"), []);
    assert.equal((await client.close()).code, 0);
  });

  it("refuses a client request whose id looks like one of the guard's own, and never forwards it", async () => {
    const { dir, lock } = fakeSetup();
    const client = new RawClient(["fake", "--lock", lock]);
    await client.initialize();
    const own = "contractpin-guard-1";
    // The guard's first own request (the list before the call below) has this very id.
    const refused = await client.request(own, "ping");
    assert.equal(refused.result, undefined);
    assert.equal(refused.error.code, -32600);
    assert.match(refused.error.message, /ids starting contractpin-guard- are reserved/);
    // The guard's own list (for the call below) is not answered with the client's request either.
    const call = await client.request(2, "tools/call", { name: "alpha", arguments: { n: 1 } });
    assert.deepEqual(call.result, { content: [{ type: "text", text: "called alpha" }] });
    assert.deepEqual(
      received(dir)
        .filter((m) => m.id === own)
        .map((m) => m.method),
      ["tools/list"],
    );
    assert.equal((await client.close()).code, 0);
  });

  it("answers a list with an unpinned tool with an error under --on-drift=block", async () => {
    const { dir, lock } = fakeSetup();
    writeFileSync(join(dir, "start"), "add");
    const client = new RawClient(["fake", "--lock", lock, "--on-drift=block"]);
    await client.initialize();
    await client.request(1, "tools/list");
    const page2 = await client.request(2, "tools/list", { cursor: "p2" });
    assert.equal(page2.result, undefined);
    assert.equal(page2.error.code, -32603);
    assert.match(
      page2.error.message,
      /^contractpin guard: the server's tools do not match the lock: gamma \(unpinned\)$/,
    );
    assert.equal((await client.close()).code, 0);
  });
});
