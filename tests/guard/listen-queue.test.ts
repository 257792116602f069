// guard --listen keeps the server's messages for a client that has no stream
// open, bounded by count (1,000) and by bytes (--max-message-mib together),
// dropping the oldest with an event in the --log file past either bound.
import { readFileSync, existsSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { join } from "node:path";
import { describe, it } from "node:test";
import { ClientQueue, MAX_QUEUED } from "../../src/guard/wire/client-queue.js";
import { assert, eventually, fakeSetup, listening } from "./guard-harness.js";
import { INIT, raw } from "./listen-raw.js";

describe("the queue of a client with no stream open", () => {
  it("keeps at most its bound in bytes, dropping the oldest: one message of the bound always fits", () => {
    let dropped = 0;
    const queue = new ClientQueue(1000, () => dropped++);
    for (let i = 0; i < 5; i++) queue.push(`${i}`.padEnd(300, "x"));
    assert.equal(dropped, 2);
    assert.equal(queue.size, 900);
    assert.deepEqual(
      queue.take().map((t) => t[0]),
      ["2", "3", "4"],
    );
    assert.equal(queue.size, 0);
    queue.push("é".repeat(500)); // 1,000 bytes of UTF-8 in 500 characters: it fits
    assert.equal(dropped, 2);
    queue.push("y");
    assert.equal(dropped, 3);
    assert.deepEqual(queue.take(), ["y"]);
    queue.push("z".repeat(1001)); // over the bound alone: dropped too
    assert.equal(dropped, 4);
    assert.deepEqual(queue.take(), []);
  });

  it("keeps at most 1,000 messages, however small", () => {
    let dropped = 0;
    const queue = new ClientQueue(64 * 1024 * 1024, () => dropped++);
    for (let i = 0; i < MAX_QUEUED + 5; i++) queue.push(`${i}`);
    assert.equal(dropped, 5);
    const kept = queue.take();
    assert.equal(kept.length, MAX_QUEUED);
    assert.equal(kept[0], "5");
  });
});

const POST = { "content-type": "application/json", accept: "application/json" };

describe("guard --listen with --max-message-mib 1 and a server that floods a client with no stream", () => {
  it("holds at most 1 MiB: drops the oldest with a --log event each, then gives the rest to the stream", async () => {
    const { dir, lock } = fakeSetup();
    const log = join(dir, "guard.log");
    const guard = await listening(["fake", "--lock", lock, "--max-message-mib", "1", "--log", log]);
    try {
      const init = await raw(guard.url, { headers: POST, body: INIT });
      assert.equal(init.status, 200, init.body);
      const session = { "mcp-session-id": String(init.headers["mcp-session-id"]) };
      const notify = JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" });
      assert.equal(
        (await raw(guard.url, { headers: { ...POST, ...session }, body: notify })).status,
        202,
      );
      // Five notifications of 400 KiB each, while the client has no stream open.
      const flood = JSON.stringify({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "mutate", arguments: { what: "flood", count: 5, size: 400 * 1024 } },
      });
      const called = await raw(guard.url, { headers: { ...POST, ...session }, body: flood });
      assert.equal(called.status, 200, called.body);
      await eventually(() => drops(log).length === 3, `three drops in the log: ${guard.stderr()}`);
      for (const drop of drops(log)) {
        assert.equal(drop["server"], "fake");
        assert.equal(drop["from"], "server");
        assert.match(
          String(drop["what"]),
          /no stream open \(the oldest past 1000 messages or 1 MiB/,
        );
      }
      const dropLines = () =>
        guard.stderr().match(/server fake: dropped a message for the client/g)?.length ?? 0;
      await eventually(() => dropLines() >= 3, `three drops on stderr: ${guard.stderr()}`);
      assert.equal(dropLines(), 3);
      // The stream, once opened, gets the two newest, which fit in 1 MiB together.
      const loggers = await streamLoggers(guard.url, session, 2);
      assert.deepEqual(loggers, ["n3", "n4"]);
    } finally {
      await guard.stop();
    }
  });
});

function drops(log: string): Record<string, unknown>[] {
  if (!existsSync(log)) return [];
  return readFileSync(log, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((e) => e["event"] === "dropped");
}

/** Opens the client's GET stream and reads `count` events: the logger field of each message. */
function streamLoggers(
  url: string,
  headers: Record<string, string>,
  count: number,
): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: "GET", headers: { ...headers, accept: "text/event-stream" } },
      (res) => {
        let text = "";
        res.on("data", (d: Buffer) => {
          text += d.toString();
          const events = text.split("\n\n").slice(0, -1);
          if (events.length < count) return;
          req.destroy();
          resolve(
            events.map((e) => {
              const data = e
                .split("\n")
                .filter((l) => l.startsWith("data: "))
                .map((l) => l.slice(6))
                .join("\n");
              return (JSON.parse(data) as { params: { logger: string } }).params.logger;
            }),
          );
        });
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end();
  });
}
