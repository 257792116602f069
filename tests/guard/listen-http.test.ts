// contractpin guard --listen: the guard as a Streamable HTTP server on
// loopback, with the official client's StreamableHTTPClientTransport. Against
// server-everything (stdio), everything gives the same results as a direct
// connection; against the fake server, drifted tools are withheld and their
// calls refused without reaching it; the listener refuses what it must (a
// non-loopback address, a foreign Origin or Host, a body over the limit, a
// second session) and leaves no process behind.
import { Client, ProtocolError, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { request as httpRequest } from "node:http";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { tempDir } from "../helpers/cleanup.js";
import { oneLine, runCli, startCli } from "../helpers/cli.js";
import { SERVERS } from "../helpers/servers.js";
import { assert, fakeSetup, isRunning, readPid, received } from "./guard-harness.js";

// Every result untouched: the comparison is of what was served, not of what a schema kept.
const ANY = {
  "~standard": { version: 1 as const, vendor: "test", validate: (value: unknown) => ({ value }) },
};

interface Listening {
  url: string;
  stderr: () => string;
  stop: () => Promise<{ code: number | null; stderr: string }>;
}

/** Starts `contractpin guard ARGS --listen ADDRESS` and reads the URL from its first stderr line. */
async function listening(args: string[], address = "127.0.0.1:0"): Promise<Listening> {
  const { child, done } = startCli(["guard", ...args, "--listen", address]);
  let stderr = "";
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL; stderr: ${stderr}`)), 15_000);
    child.stderr!.on("data", (d: Buffer) => {
      stderr += d.toString();
      const m = /^contractpin: guard: listening on (http:\/\/\S+)\n/.exec(stderr);
      if (m !== null) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once("exit", () => reject(new Error(`the guard exited; stderr: ${stderr}`)));
  });
  return {
    url,
    stderr: () => stderr,
    stop: async () => {
      child.kill("SIGTERM");
      const r = await done;
      return { code: r.code, stderr: r.stderr };
    },
  };
}

async function httpClient(url: string, capabilities = {}): Promise<Client> {
  const client = new Client({ name: "listen-test", version: "1.0.0" }, { capabilities });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

async function stdioClient(argv: string[], capabilities = {}): Promise<Client> {
  const client = new Client({ name: "listen-test", version: "1.0.0" }, { capabilities });
  await client.connect(
    new StdioClientTransport({ command: argv[0]!, args: argv.slice(1), stderr: "ignore" }),
  );
  return client;
}

/** Every tools/list page, as served. */
async function allPages(client: Client): Promise<{ tools: { name: string }[] }[]> {
  const pages: { tools: { name: string }[]; nextCursor?: string }[] = [];
  let cursor: string | undefined;
  do {
    const page = (await client.request(
      { method: "tools/list", params: cursor === undefined ? {} : { cursor } },
      ANY,
    )) as { tools: { name: string }[]; nextCursor?: string };
    pages.push(page);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return pages;
}

const names = (pages: { tools: { name: string }[] }[]) =>
  pages.flatMap((p) => p.tools.map((t) => t.name));

/** Waits until `test` holds, up to 10 s. */
async function eventually(test: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 100 && !test(); i++) await new Promise((r) => setTimeout(r, 100));
  assert.ok(test(), what);
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
    assert.ok(names(pages).length >= 13);
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
