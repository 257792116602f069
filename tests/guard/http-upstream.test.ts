// contractpin guard in front of a server pinned over Streamable HTTP
// (server-everything in streamableHttp mode), with the official client over
// stdio: the same results as a direct HTTP connection, a tool the lock does
// not pin withheld and refused, and an unreachable server failing closed.
import { Client, ProtocolError, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";
import { tempDir } from "../helpers/cleanup.js";
import { CLI, pythonDigest, runCli } from "../helpers/cli.js";
import { startEverythingHttp, startHttpScript, type Running } from "../helpers/servers.js";
import {
  assert,
  officialClient,
  RawClient,
  stderrShows,
  writeLock,
  type Loose,
} from "./guard-harness.js";

const WIRE_HTTP = fileURLToPath(
  new URL("../fixtures/servers/wire-http-server.mjs", import.meta.url),
);

function viaGuard(lock: string, name: string): Promise<{ client: Client; stderr: () => string }> {
  return officialClient([process.execPath, CLI, "guard", name, "--lock", lock]);
}

describe("a server pinned over HTTP, through the guard", () => {
  const dir = tempDir("contractpin-guard-http-");
  const lock = join(dir, "contractpin.lock");
  let server: Running;
  let direct: Client;
  let guarded: { client: Client; stderr: () => string };

  before(async () => {
    server = await startEverythingHttp();
    const added = runCli(["add", "evh", "--lock", lock, "--no-snapshot", "--url", server.url]);
    assert.equal(added.code, 0, added.stderr);
    direct = new Client({ name: "guard-test", version: "1.0.0" }, { capabilities: {} });
    await direct.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    guarded = await viaGuard(lock, "evh");
  });
  after(async () => {
    await direct?.close();
    await guarded?.client.close();
    await server?.stop();
  });

  it("gives the same results as a direct connection", async () => {
    const { client } = guarded;
    assert.deepEqual(client.getServerCapabilities(), direct.getServerCapabilities());
    assert.deepEqual(await client.listTools(), await direct.listTools());
    const args = { name: "get-sum", arguments: { a: 1, b: 2 } };
    assert.deepEqual(await client.callTool(args), await direct.callTool(args));
    const uri = (await direct.listResources()).resources[0]!.uri;
    assert.deepEqual(await client.readResource({ uri }), await direct.readResource({ uri }));
    assert.deepEqual(await client.ping(), await direct.ping());
    assert.equal(guarded.stderr(), "");
  });

  it("withholds and refuses a tool the lock does not pin", async () => {
    // The lock of the same server without echo, its digests from the Python implementation.
    const dump = join(dir, "dump.json");
    const dumped = runCli(["dump", "--url", server.url, "--output", dump]);
    assert.equal(dumped.code, 0, dumped.stderr);
    const pages = JSON.parse(readFileSync(dump, "utf8")) as {
      result: { tools: { name: string }[] };
    }[];
    for (const page of pages)
      page.result.tools = page.result.tools.filter((t) => t.name !== "echo");
    writeFileSync(dump, JSON.stringify(pages));
    const pinned = JSON.parse(readFileSync(lock, "utf8"));
    // A pin of the tools only (a version 1 lock): the dump is a tools/list dump.
    const { surface: _surface, ...evh } = pinned.servers.evh;
    const without = join(dir, "without-echo.lock");
    writeFileSync(
      without,
      JSON.stringify({
        ...pinned,
        contractpin: "1",
        servers: { evh: { ...evh, ...(pythonDigest(dump) as object) } },
      }),
    );
    const { client, stderr } = await viaGuard(without, "evh");
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      assert.ok(!names.includes("echo"));
      assert.ok(names.includes("get-sum"));
      await assert.rejects(
        client.callTool({ name: "echo", arguments: { message: "x" } }),
        (err: unknown) =>
          err instanceof ProtocolError &&
          err.code === -32602 &&
          /Unknown tool: echo/.test(err.message),
      );
      await stderrShows(
        stderr,
        /contractpin: guard: server evh: refused tools\/call "echo": unpinned/,
      );
    } finally {
      await client.close();
    }
  });
});

/** The guard of server `name`, pinned over HTTP at `url` (one tool), after the client's initialize. */
async function guardOfUnreadable(
  name: string,
  url: string,
): Promise<{ client: RawClient; init: Loose }> {
  const dir = tempDir("contractpin-guard-http-");
  const lock = join(dir, "contractpin.lock");
  const dump = join(dir, "tools.json");
  writeFileSync(dump, '{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}');
  writeLock(lock, { [name]: { transport: "http", url, ...(pythonDigest(dump) as object) } });
  const client = new RawClient([name, "--lock", lock]);
  const init = await client.request(0, "initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "x", version: "1" },
  });
  return { client, init };
}

describe("an HTTP server that cannot be reached", () => {
  it("gets the client an error and a line on stderr, never tools", async () => {
    const { client, init } = await guardOfUnreadable("gone", "http://127.0.0.1:9/mcp");
    assert.equal(init.error.code, -32603);
    assert.match(init.error.message, /^contractpin guard: could not reach the server: /);
    const call = await client.request(1, "tools/call", { name: "a", arguments: {} });
    assert.equal(call.error.code, -32603);
    assert.equal((await client.close()).code, 0);
    assert.match(client.stderr, /^contractpin: guard: server gone: could not reach the server: /m);
  });
});

describe("an HTTP server whose URL holds a user name and password", () => {
  // fetch refuses such a URL with an error that quotes it whole: the guard
  // fails closed without sending it, and shows neither the name nor the password.
  it("gets the client an error naming the fix, and shows no part of the credential", async () => {
    const password = "Tr0ub4dor-3-horse";
    const { client, init } = await guardOfUnreadable(
      "userinfo",
      `http://admin:${password}@127.0.0.1:9/mcp`,
    );
    assert.equal(init.error.code, -32603);
    await client.close();
    const shown = client.lines.join("\n") + client.stderr;
    assert.ok(!shown.includes(password), shown);
    assert.ok(!shown.includes("admin"), shown);
    assert.match(
      client.stderr,
      /the URL holds a user name or password, which an HTTP request cannot carry/,
    );
  });
});

describe("an HTTP server that answers with an SSE event over --max-message-mib", () => {
  it("ends the session with one line naming the limit; the client never gets the tools", async () => {
    const server = await startHttpScript(WIRE_HTTP, ["sse-big", String(2 * 1024 * 1024)]);
    try {
      const dir = tempDir("contractpin-guard-http-");
      const lock = join(dir, "contractpin.lock");
      const dump = join(dir, "tools.json");
      writeFileSync(dump, '{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}');
      writeLock(lock, {
        remote: { transport: "http", url: server.url, ...(pythonDigest(dump) as object) },
      });
      const client = new RawClient(["remote", "--lock", lock, "--max-message-mib", "1"]);
      await client.initialize();
      client.send({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });
      const ended = await Promise.race([
        client.exited,
        new Promise<"running">((r) => setTimeout(r, 20_000, "running").unref()),
      ]);
      assert.notEqual(ended, "running", `the guard kept the session: ${client.stderr}`);
      assert.notEqual((ended as { code: number | null }).code, 0);
      assert.ok(!client.lines.some((l) => l.includes('"big"')), client.lines.join("\n"));
      assert.match(
        client.stderr,
        /server remote: the server sent a message larger than 1048576 bytes/,
      );
    } finally {
      await server.stop();
    }
  });
});
