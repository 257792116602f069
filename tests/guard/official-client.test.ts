// The official MCP client (@modelcontextprotocol/client) through
// `contractpin guard`: against server-everything, everything it does gives
// the same results as a direct connection; against the fake server, a drift
// in the middle of the session is heard, withheld and refused.
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { after, before, describe, it } from "node:test";
import { join } from "node:path";
import { atEnd, tempDir } from "../helpers/cleanup.js";
import { CLI, runCli } from "../helpers/cli.js";
import { SERVERS } from "../helpers/servers.js";
import { allPages, driftMidSession } from "./client-scenarios.js";
import { assert, fakeSetup, received } from "./guard-harness.js";

async function connect(command: string[]): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: command[0]!,
    args: command.slice(1),
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
  const client = new Client({ name: "guard-test", version: "1.0.0" }, { capabilities: {} });
  await client.connect(transport);
  const pid = transport.pid;
  if (pid !== null)
    atEnd(() => {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    });
  return { client, stderr: () => stderr };
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
      // stderr is its own pipe: the line may arrive after the answer.
      for (let i = 0; i < 50 && !stderr().includes("refused tools/call"); i++)
        await new Promise((r) => setTimeout(r, 100));
      assert.match(
        stderr(),
        /contractpin: guard: server fake: refused tools\/call "alpha": drifted/,
      );
    } finally {
      await client.close();
    }
  });
});
