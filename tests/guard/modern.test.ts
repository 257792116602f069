// contractpin guard under protocol revision 2026-07-28 (stateless, server/discover,
// list_changed on subscriptions/listen streams), against a server that speaks
// only that revision (modern-fake-server.mjs): with the official client pinned
// to 2026-07-28 over stdio, and with a line-level client for what the guard
// itself sends.
import { Client, ProtocolError } from "@modelcontextprotocol/client";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { tempDir } from "../helpers/cleanup.js";
import { CLI } from "../helpers/cli.js";
import { startHttpScript } from "../helpers/servers.js";
import {
  allPages,
  assert,
  digestsOf,
  eventLines,
  fakeSetup,
  MODERN,
  officialClient,
  RAW,
  RawClient,
  received,
  refusedAsDrifted,
  stderrShows,
  toolNames,
  writeLock,
  type Loose,
} from "./guard-harness.js";

const V = "2026-07-28";
const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": V,
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** The official client, pinned to 2026-07-28, launching `contractpin guard fake --lock LOCK`. */
function modernClient(lock: string): Promise<{ client: Client; stderr: () => string }> {
  return officialClient([process.execPath, CLI, "guard", "fake", "--lock", lock], {
    capabilities: {},
    versionNegotiation: { mode: { pin: V } },
  });
}

async function names(client: Client): Promise<string[]> {
  return toolNames(await allPages(client));
}

const calls = (dir: string) =>
  received(dir)
    .filter((m) => m.method === "tools/call")
    .map((m) => m.params.name as string);

describe("the official client under 2026-07-28 through the guard", () => {
  it("lists, calls, hears a drift on its subscription, and the drifted tool is withheld and refused", async () => {
    const { dir, lock } = fakeSetup(undefined, MODERN);
    const { client, stderr } = await modernClient(lock);
    try {
      assert.equal(client.getNegotiatedProtocolVersion(), V);
      assert.deepEqual(client.getServerCapabilities()?.tools, { listChanged: true });
      let heard!: () => void;
      const notified = new Promise<void>((resolve) => (heard = resolve));
      client.setNotificationHandler("notifications/tools/list_changed", () => heard());
      const subscription = await client.listen({ toolsListChanged: true });
      assert.deepEqual(subscription.honoredFilter, { toolsListChanged: true });

      assert.deepEqual(await names(client), ["alpha", "beta", "mutate"]);
      const ok = await client.callTool({ name: "alpha", arguments: { n: 1 } });
      assert.deepEqual(ok.content, [{ type: "text", text: "called alpha" }]);

      await client.callTool({ name: "mutate", arguments: { what: "drift" } });
      await notified;
      // A client that keeps its stale list calls the drifted tool at once.
      await assert.rejects(
        client.callTool({ name: "alpha", arguments: {} }),
        refusedAsDrifted("alpha"),
      );
      assert.deepEqual(await names(client), ["beta", "mutate"]);
      assert.deepEqual(calls(dir), ["alpha", "mutate"]);
      // No initialize anywhere (the discover probe ran on a sibling guard of its own).
      assert.equal(
        received(dir).some((m) => m.method === "initialize"),
        false,
      );
      await stderrShows(stderr, /server fake: refused tools\/call "alpha": drifted/);
      await subscription.close();
    } finally {
      await client.close();
    }
  });
});

describe("what the guard sends in a 2026-07-28 session", () => {
  it("lists with the client's envelope in a session that never initialized, before forwarding list_changed", async () => {
    const { dir, lock } = fakeSetup(undefined, MODERN);
    const client = new RawClient(["fake", "--lock", lock]);
    const listen = { _meta: ENVELOPE, notifications: { toolsListChanged: true } };
    client.send({ jsonrpc: "2.0", id: "sub-1", method: "subscriptions/listen", params: listen });
    await client.until(
      () => client.lines.find((l) => l.includes("subscriptions/acknowledged")),
      "the acknowledgement",
    );
    // A call before any list: the guard lists every page itself first.
    const call = await client.request(1, "tools/call", {
      _meta: ENVELOPE,
      name: "mutate",
      arguments: { what: "drift" },
    });
    assert.equal(call.result.content[0].text, "called mutate");
    const changed = await client.until(
      () => client.lines.findIndex((l) => l.includes("list_changed")) + 1 || undefined,
      "list_changed",
    );
    const forwarded = JSON.parse(client.lines[changed - 1]!) as Loose;
    assert.equal(forwarded.params._meta["io.modelcontextprotocol/subscriptionId"], "sub-1");
    const own = received(dir).filter(
      (m) => typeof m.id === "string" && m.id.startsWith("contractpin-guard-"),
    );
    // Its own subscription, then a full list before the call, then one after the
    // change (a second may follow, for the change heard on its own subscription).
    assert.deepEqual(
      own.slice(0, 5).map((m) => [m.method, m.params.cursor ?? null]),
      [
        ["subscriptions/listen", null],
        ["tools/list", null],
        ["tools/list", "p2"],
        ["tools/list", null],
        ["tools/list", "p2"],
      ],
    );
    for (const m of own) assert.deepEqual(m.params._meta, ENVELOPE);
    // Only the client's own subscription reaches it: one acknowledgement, one list_changed.
    assert.equal(client.lines.filter((l) => l.includes("subscriptions/acknowledged")).length, 1);
    assert.equal(client.lines.filter((l) => l.includes("list_changed")).length, 1);
    const refused = await client.request(2, "tools/call", { _meta: ENVELOPE, name: "alpha" });
    assert.equal(refused.error.code, -32602);
    assert.deepEqual(
      received(dir)
        .filter((m) => m.method === "tools/call")
        .map((m) => m.params.name),
      ["mutate"],
    );
    assert.equal((await client.close()).code, 0);
    const events = eventLines(client.stderr);
    assert.match(events.pop()!, /refused tools\/call "alpha": drifted/);
    assert.ok(events.length >= 1, client.stderr);
    for (const line of events) assert.match(line, /withheld tool "alpha": drifted/);
  });

  it("hears a drift on its own subscription when the client never subscribes", async () => {
    const { dir, lock } = fakeSetup(undefined, MODERN);
    const client = new RawClient(["fake", "--lock", lock]);
    const list = await client.request(1, "tools/list", { _meta: ENVELOPE });
    assert.deepEqual(
      list.result.tools.map((t: { name: string }) => t.name),
      ["alpha", "beta"],
    );
    await client.request(2, "tools/call", {
      _meta: ENVELOPE,
      name: "mutate",
      arguments: { what: "drift" },
    });
    // The client hears nothing (it did not subscribe); the guard lists again on its own.
    await client.until(
      () => received(dir).filter((m) => m.method === "tools/list").length >= 5 || undefined,
      "the guard's own re-list",
    );
    const refused = await client.request(3, "tools/call", { _meta: ENVELOPE, name: "alpha" });
    assert.equal(refused.error.code, -32602);
    assert.equal(refused.error.data.reason, "drifted");
    assert.equal(
      client.lines.some((l) => /list_changed|acknowledged/.test(l)),
      false,
    );
    assert.deepEqual(calls(dir), ["mutate"]);
    assert.equal((await client.close()).code, 0);
  });
});

describe("a 2026-07-28 client whose envelope changes in the session", () => {
  it("checks again under the new envelope: a tool admitted under the old one and served changed under the new is refused", async () => {
    const { dir, lock } = fakeSetup(undefined, MODERN);
    const client = new RawClient(["fake", "--lock", lock]);
    try {
      const list = await client.request(1, "tools/list", { _meta: ENVELOPE });
      assert.deepEqual(
        list.result.tools.map((t: { name: string }) => t.name),
        ["alpha", "beta"],
      );
      // Other client capabilities: the server serves another alpha for them.
      const sampling = {
        ...ENVELOPE,
        "io.modelcontextprotocol/clientCapabilities": { sampling: {} },
      };
      const refused = await client.request(2, "tools/call", { _meta: sampling, name: "alpha" });
      assert.equal(refused.error?.code, -32602, JSON.stringify(refused));
      assert.equal(refused.error.data.reason, "drifted");
      assert.deepEqual(calls(dir), []);
      // The guard listed again itself, with the new envelope.
      const own = received(dir).filter(
        (m) => m.method === "tools/list" && String(m.id).startsWith("contractpin-guard-"),
      );
      assert.ok(own.length >= 2, JSON.stringify(own));
      for (const m of own) assert.deepEqual(m.params._meta, sampling);
      // Back under the first envelope, alpha is the pinned one again.
      const called = await client.request(3, "tools/call", { _meta: ENVELOPE, name: "alpha" });
      assert.equal(called.result?.content[0].text, "called alpha", JSON.stringify(called));
      assert.deepEqual(calls(dir), ["alpha"]);
    } finally {
      await client.close();
    }
  });
});

describe("a 2026-07-28 server over Streamable HTTP, through the guard", () => {
  it("gets Mcp-Method and Mcp-Name headers that agree with each body, and drift is still refused", async () => {
    const dir = tempDir("contractpin-guard-modern-http-");
    const server = await startHttpScript(MODERN, [dir, "http"]);
    const lock = join(dir, "contractpin.lock");
    writeLock(lock, {
      fake: {
        transport: "http",
        url: server.url,
        ...digestsOf(dir, [RAW.alpha, RAW.beta, RAW.mutate]),
      },
    });
    const { client, stderr } = await modernClient(lock);
    try {
      let heard!: () => void;
      const notified = new Promise<void>((resolve) => (heard = resolve));
      client.setNotificationHandler("notifications/tools/list_changed", () => heard());
      const subscription = await client.listen({ toolsListChanged: true });
      assert.deepEqual(await names(client), ["alpha", "beta", "mutate"]);
      const ok = await client.callTool({ name: "alpha", arguments: {} });
      assert.deepEqual(ok.content, [{ type: "text", text: "called alpha" }]);
      await client.callTool({ name: "mutate", arguments: { what: "drift" } });
      await notified;
      await assert.rejects(
        client.callTool({ name: "alpha", arguments: {} }),
        (err: unknown) => err instanceof ProtocolError && err.code === -32602,
      );
      const posts = httpReceived(dir).filter((r) => r.body.id !== undefined);
      assert.deepEqual(
        posts.filter((r) => r.body.method === "tools/call").map((r) => r.body.params.name),
        ["alpha", "mutate"],
      );
      const own = posts.filter((r) => String(r.body.id).startsWith("contractpin-guard-"));
      assert.deepEqual(
        [...new Set(own.map((r) => r.body.method))],
        ["subscriptions/listen", "tools/list"],
      );
      for (const { headers, body } of posts) {
        assert.equal(headers["mcp-method"], body.method);
        assert.equal(headers["mcp-protocol-version"], V);
        assert.equal(
          headers["mcp-name"],
          body.method === "tools/call" ? body.params.name : undefined,
        );
      }
      assert.doesNotMatch(stderr(), /HTTP 400/);
      await subscription.close();
    } finally {
      await client.close();
      await server.stop();
    }
  });
});

/** What the HTTP fake server received: each POST's headers and parsed body. */
function httpReceived(dir: string): { headers: Record<string, string>; body: Loose }[] {
  return readFileSync(join(dir, "received.log"), "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as { headers: Record<string, string>; body: string })
    .filter((r) => r.body !== "")
    .map((r) => ({ headers: r.headers, body: JSON.parse(r.body) as Loose }));
}
