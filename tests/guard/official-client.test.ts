// The official MCP client (@modelcontextprotocol/client) through
// `contractpin guard`: against server-everything, everything it does gives
// the same results as a direct connection; against the fake server, a drift
// in the middle of the session is heard, withheld and refused.
import { Client, type ClientCapabilities } from "@modelcontextprotocol/client";
import { after, before, describe, it } from "node:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../helpers/cleanup.js";
import { CLI, pythonDigest, runCli } from "../helpers/cli.js";
import { rawStdioDump, SERVERS } from "../helpers/servers.js";
import {
  allPages,
  assert,
  fakeSetup,
  officialClient,
  received,
  stderrShows,
  toolNames,
  writeLock,
} from "./guard-harness.js";
import { driftMidSession } from "./client-scenarios.js";

function connect(
  command: string[],
  capabilities: ClientCapabilities = {},
  setup?: (client: Client) => void,
): Promise<{ client: Client; stderr: () => string }> {
  return officialClient(command, { capabilities }, setup);
}

describe("server-everything through the guard, with the official client", () => {
  const dir = tempDir("contractpin-guard-everything-");
  const lock = join(dir, "contractpin.lock");
  let direct: Client;
  let guarded: { client: Client; stderr: () => string };

  before(async () => {
    const added = runCli([
      "add",
      "everything",
      "--lock",
      lock,
      "--no-snapshot",
      "--",
      process.execPath,
      SERVERS.everything,
    ]);
    assert.equal(added.code, 0, added.stderr);
    direct = (await connect([process.execPath, SERVERS.everything])).client;
    guarded = await connect([process.execPath, CLI, "guard", "everything", "--lock", lock]);
  });
  after(async () => {
    await direct?.close();
    await guarded?.client.close();
  });

  it("initializes with the same capabilities", () => {
    assert.deepEqual(guarded.client.getServerCapabilities(), direct.getServerCapabilities());
    assert.deepEqual(guarded.client.getServerVersion(), direct.getServerVersion());
  });

  it("lists every tool page alike", async () => {
    const pages = await allPages(guarded.client);
    assert.deepEqual(pages, await allPages(direct));
    assert.ok((pages[0] as { tools: unknown[] }).tools.length >= 13);
  });

  it("withholds what the lock does not pin: a client that can sample sees only the pinned tools", async () => {
    // The lock pins the 13 tools of a client with no capabilities; this client's adds more.
    const capabilities = { sampling: {}, elicitation: {} };
    const wider = (await connect([process.execPath, SERVERS.everything], capabilities)).client;
    const seen = await connect(
      [process.execPath, CLI, "guard", "everything", "--lock", lock],
      capabilities,
    );
    try {
      const pinned = toolNames(await allPages(direct));
      const served = toolNames(await allPages(wider));
      assert.ok(served.includes("trigger-sampling-request"));
      assert.deepEqual(
        toolNames(await allPages(seen.client)),
        served.filter((name) => pinned.includes(name)),
      );
      await assert.rejects(
        seen.client.callTool({ name: "trigger-sampling-request", arguments: {} }),
        (err: Error & { code?: number }) =>
          err.code === -32602 && /Unknown tool: trigger-sampling-request/.test(err.message),
      );
      await stderrShows(seen.stderr, /withheld tool "trigger-sampling-request": unpinned/);
    } finally {
      await wider.close();
      await seen.client.close();
    }
  });

  it("calls tools alike", async () => {
    for (const [name, args] of [
      ["echo", { message: "through the guard" }],
      ["get-sum", { a: 2, b: 40 }],
      ["get-structured-content", { location: "New York" }],
    ] as const) {
      const viaGuard = await guarded.client.callTool({ name, arguments: args });
      assert.deepEqual(viaGuard, await direct.callTool({ name, arguments: args }), name);
    }
  });

  it("reads a resource, gets a prompt and pings alike", async () => {
    const resources = await guarded.client.listResources();
    assert.deepEqual(resources, await direct.listResources());
    const uri = resources.resources[0]!.uri;
    assert.deepEqual(
      await guarded.client.readResource({ uri }),
      await direct.readResource({ uri }),
    );
    const prompts = await guarded.client.listPrompts();
    assert.deepEqual(prompts, await direct.listPrompts());
    const simple = prompts.prompts.find((p) => (p.arguments ?? []).every((a) => !a.required))!;
    assert.deepEqual(
      await guarded.client.getPrompt({ name: simple.name }),
      await direct.getPrompt({ name: simple.name }),
    );
    assert.deepEqual(await guarded.client.ping(), await direct.ping());
  });

  it("says nothing on stderr when every tool matches", () => {
    assert.equal(guarded.stderr(), "");
  });
});

describe("server-everything's own requests through the guard, with the official client", () => {
  // server-everything adds tools for a client that can sample and elicit:
  // the lock pins what such a client sees (digests by the Python implementation).
  const capabilities = { sampling: {}, elicitation: {} };
  const dir = tempDir("contractpin-guard-sampling-");
  const lock = join(dir, "contractpin.lock");
  const asked: string[][] = [[], []];
  let direct: Client;
  let guarded: { client: Client; stderr: () => string };

  /** Answers sampling and elicitation as a user would; resolves at the server's first list_changed. */
  function answering(log: string[]): { setup: (c: Client) => void; changed: Promise<void> } {
    let heard!: () => void;
    const changed = new Promise<void>((resolve) => (heard = resolve));
    const setup = (client: Client) => {
      client.setNotificationHandler("notifications/tools/list_changed", () => heard());
      client.setRequestHandler("sampling/createMessage", (request) => {
        const first = request.params.messages[0]!.content as { text?: string };
        log.push(`sampling: ${first.text}`);
        return {
          model: "test-model",
          role: "assistant" as const,
          content: { type: "text" as const, text: `sampled: ${first.text}` },
        };
      });
      client.setRequestHandler("elicitation/create", (request) => {
        log.push(`elicitation: ${request.params.message}`);
        return { action: "accept" as const, content: { name: "Ada", check: true } };
      });
    };
    return { setup, changed };
  }

  before(async () => {
    const dump = join(dir, "dump.json");
    writeFileSync(dump, rawStdioDump([process.execPath, SERVERS.everything], {}, capabilities));
    writeLock(lock, {
      everything: {
        transport: "stdio",
        command: [process.execPath, SERVERS.everything],
        ...(pythonDigest(dump) as object),
      },
    });
    const a = answering(asked[0]!);
    direct = (await connect([process.execPath, SERVERS.everything], capabilities, a.setup)).client;
    const b = answering(asked[1]!);
    guarded = await connect(
      [process.execPath, CLI, "guard", "everything", "--lock", lock],
      capabilities,
      b.setup,
    );
    await Promise.all([a.changed, b.changed]);
  });
  after(async () => {
    await direct?.close();
    await guarded?.client.close();
  });

  it("lists the tools of those capabilities alike, none withheld", async () => {
    const pages = await allPages(guarded.client);
    assert.deepEqual(pages, await allPages(direct));
    const listed = toolNames(pages);
    assert.ok(
      listed.includes("trigger-sampling-request") && listed.includes("trigger-elicitation-request"),
    );
  });

  it("relays the server's sampling and elicitation requests to the client and its answers back", async () => {
    for (const [name, args] of [
      ["trigger-sampling-request", { prompt: "through the guard", maxTokens: 5 }],
      ["trigger-elicitation-request", {}],
    ] as const) {
      const viaGuard = await guarded.client.callTool({ name, arguments: args });
      assert.deepEqual(viaGuard, await direct.callTool({ name, arguments: args }), name);
      assert.match(JSON.stringify(viaGuard), /sampled: |Ada/);
    }
    assert.deepEqual(asked[1], asked[0]);
    assert.deepEqual(
      asked[1]!.map((line) => line.split(":")[0]),
      ["sampling", "elicitation"],
    );
    // The lock pins only tools (this test's subject): one line says what else is withheld.
    assert.match(
      guarded.stderr(),
      /^contractpin: guard: server everything: removed its instructions from the handshake's result: unpinned \(the lock pins only its tools, .*`contractpin update` pins them\)\n$/,
    );
  });
});

describe("a drift in the middle of a session, with the official client", () => {
  it("is heard, withheld from the next list, and its call refused without reaching the server", async () => {
    const { dir, lock } = fakeSetup();
    const { client, stderr } = await connect([
      process.execPath,
      CLI,
      "guard",
      "fake",
      "--lock",
      lock,
    ]);
    try {
      await driftMidSession(client);
      assert.deepEqual(
        received(dir)
          .filter((m) => m.method === "tools/call")
          .map((m) => m.params.name),
        ["mutate"],
      );
      await stderrShows(
        stderr,
        /contractpin: guard: server fake: refused tools\/call "alpha": drifted/,
      );
    } finally {
      await client.close();
    }
  });
});
