// The order of what the guard writes to the client (src/guard/wire/outbox.ts):
// a tools/list answer is checked against the lock before it is written, and
// nothing the server sent after it (a notification, a request of its own, an
// unchecked answer) may reach the client first.
import { describe, it } from "node:test";
import { assert, inProcessRelay, RAW } from "./guard-harness.js";

const PAGE = `{"jsonrpc":"2.0","id":1,"result":{"tools":[${RAW.alpha},${RAW.beta}]}}`;
const LOG =
  '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}';
const PING = '{"jsonrpc":"2.0","id":"s-1","method":"ping"}';
const PONG = '{"jsonrpc":"2.0","id":2,"result":{}}';

describe("messages the server sends after a tools/list answer still being checked", () => {
  it("reach the client after that answer, in the order sent", async () => {
    const { relay, toClient, events } = inProcessRelay();
    relay.fromClient(Buffer.from('{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}'));
    relay.fromClient(Buffer.from('{"jsonrpc":"2.0","id":2,"method":"ping"}'));
    await relay.drained();
    // One read from the server's pipe: the answer, then what overtakes it if it can.
    for (const line of [PAGE, LOG, PING, PONG]) relay.fromServer(line);
    await relay.drained();
    assert.deepEqual(toClient, [PAGE, LOG, PING, PONG]);
    assert.deepEqual(events, []);
  });
});
