// A hostile server's answers that answer nothing the guard forwarded (issue
// 21): ids the official client would take for its own ("1" for 1), a second
// answer (two lines, or inside one batch), an answer to an id never asked,
// an answer with both result and error, with neither, or with a method beside
// its result. Through the guard, over stdio and over --listen alike, the
// official client never sees the poisoned alpha nor the unpinned evil; each
// such answer is dropped with one stderr line and one event in the --log
// file, and a request whose answer was unusable gets an error.
import { Client, ProtocolError, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { CLI } from "../helpers/cli.js";
import { assert, eventually, fakeSetup, listening, officialClient, RAW } from "./guard-harness.js";

const HOSTILE = fileURLToPath(
  new URL("../fixtures/servers/guard-hostile-server.mjs", import.meta.url),
);
/** Long enough for a loaded machine, short enough that an answer never sent fails the test. */
const TIMEOUT = { timeout: 8000 };

/** One way of answering, and what the client and stderr show through the guard. */
interface Trick {
  mode: string;
  what: string;
  /** Runs against the guarded client; the errors the client library reported are given. */
  check: (client: Client, clientErrors: string[]) => Promise<void>;
  /** How many "dropped" lines the guard writes on stderr. */
  dropped: number;
}

async function listsOnlyPinned(client: Client): Promise<void> {
  const { tools } = await client.listTools(undefined, TIMEOUT);
  assert.deepEqual(
    tools.map((t) => t.name),
    ["alpha", "beta"],
  );
  assert.ok(!JSON.stringify(tools).includes("id_rsa"), "the poisoned alpha reached the client");
}

function refusedWith(pattern: RegExp): (err: unknown) => boolean {
  return (err) => err instanceof ProtocolError && err.code === -32603 && pattern.test(err.message);
}

const TRICKS: Trick[] = [
  {
    mode: "lookalikes",
    what: 'answers to "1", "01", " 1", "1e0" and 1.0 for the request 1 are dropped, the real answer relayed',
    check: listsOnlyPinned,
    dropped: 5,
  },
  {
    mode: "twice",
    what: "a second answer on the next line is dropped, the first (checked) one relayed",
    check: listsOnlyPinned,
    dropped: 1,
  },
  {
    mode: "batch-twice",
    what: "a second answer inside one batch is dropped, the first (checked) one relayed",
    check: listsOnlyPinned,
    dropped: 1,
  },
  {
    mode: "unknown",
    what: "an answer to an id never asked is dropped and never reaches the client",
    check: async (client, clientErrors) => {
      await listsOnlyPinned(client);
      assert.deepEqual(clientErrors, []);
    },
    dropped: 1,
  },
  {
    mode: "result-error",
    what: "an answer with both result and error is dropped, and the request gets an error",
    check: async (client) => {
      await assert.rejects(
        client.listTools(undefined, TIMEOUT),
        refusedWith(/^contractpin guard: the server's answer has both result and error$/),
      );
    },
    dropped: 1,
  },
  {
    mode: "neither",
    what: "an answer with neither result nor error is dropped, and the request gets an error",
    check: async (client) => {
      await listsOnlyPinned(client);
      await assert.rejects(
        client.callTool({ name: "alpha", arguments: {} }, TIMEOUT),
        refusedWith(/^contractpin guard: the server's answer has neither result nor error$/),
      );
    },
    dropped: 1,
  },
  {
    mode: "method",
    what: "an answer that also carries a method is dropped, and the request gets an error",
    check: async (client) => {
      await listsOnlyPinned(client);
      await assert.rejects(
        client.callTool({ name: "alpha", arguments: {} }, TIMEOUT),
        refusedWith(/^contractpin guard: the server's answer has a method$/),
      );
    },
    dropped: 1,
  },
];

/** A state folder for the hostile server in `mode`, and a lock pinning alpha and beta as `fake`. */
function hostile(mode: string): { dir: string; lock: string } {
  const { dir, lock } = fakeSetup([RAW.alpha, RAW.beta], HOSTILE);
  writeFileSync(join(dir, "mode"), mode);
  return { dir, lock };
}

function droppedLines(stderr: string): string[] {
  return stderr.split("\n").filter((l) => /^contractpin: guard: server fake: dropped /.test(l));
}

/** The --log file's events, their times checked and taken out. */
function logged(file: string): Record<string, unknown>[] {
  if (!existsSync(file)) return [];
  const lines = readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l !== "");
  return lines.map((l) => {
    const { time, ...event } = JSON.parse(l) as Record<string, unknown>;
    assert.match(String(time), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    return event;
  });
}

/** The guard's faces: each gives a connected official client, its stderr, and how to end both. */
const FACES = {
  stdio: async (lock: string, errors: string[], log: string) => {
    const { client, stderr } = await officialClient(
      [process.execPath, CLI, "guard", "fake", "--lock", lock, "--log", log],
      { capabilities: {} },
      (c) => (c.onerror = (e) => errors.push(e.message)),
    );
    return { client, stderr, end: () => client.close() };
  },
  listen: async (lock: string, errors: string[], log: string) => {
    const guard = await listening(["fake", "--lock", lock, "--log", log]);
    const client = new Client({ name: "hostile-test", version: "1.0.0" }, { capabilities: {} });
    client.onerror = (e) => errors.push(e.message);
    await client.connect(new StreamableHTTPClientTransport(new URL(guard.url)));
    return {
      client,
      stderr: guard.stderr,
      end: async () => {
        await client.close();
        await guard.stop();
      },
    };
  },
};

for (const [face, connect] of Object.entries(FACES)) {
  describe(`a hostile server's answers through the guard (${face}), with the official client`, () => {
    for (const trick of TRICKS) {
      it(trick.what, async () => {
        const errors: string[] = [];
        const { dir, lock } = hostile(trick.mode);
        const log = join(dir, "guard.jsonl");
        const { client, stderr, end } = await connect(lock, errors, log);
        try {
          await trick.check(client, errors);
          await eventually(() => droppedLines(stderr()).length >= trick.dropped);
          const dropped = droppedLines(stderr());
          assert.equal(dropped.length, trick.dropped, stderr());
          for (const line of dropped)
            assert.match(line, /^contractpin: guard: server fake: dropped an answer/);
          // Each is an event in the --log file too, saying what the stderr line says.
          assert.deepEqual(
            logged(log),
            dropped.map((line) => ({
              event: "dropped",
              server: "fake",
              from: "server",
              what: line.replace("contractpin: guard: server fake: dropped ", ""),
            })),
          );
        } finally {
          await end();
        }
      });
    }

    it("relays an honest server's answers as before, and says nothing", async () => {
      const errors: string[] = [];
      const { dir, lock } = hostile("honest");
      const log = join(dir, "guard.jsonl");
      const { client, stderr, end } = await connect(lock, errors, log);
      try {
        await listsOnlyPinned(client);
        assert.deepEqual(await client.callTool({ name: "beta", arguments: {} }), {
          content: [{ type: "text", text: "called beta" }],
        });
        assert.deepEqual(droppedLines(stderr()), []);
        assert.deepEqual(logged(log), []);
        assert.deepEqual(errors, []);
      } finally {
        await end();
      }
    });
  });
}
