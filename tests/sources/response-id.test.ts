// Which responses a client on the official MCP library could take for the
// answer to a request, and which it could not: the rule that decides whether
// a response that answers nothing contractpin sent is skipped or fails.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { mayAnswer, mayAnswerLater } from "../../src/sources/live/response-id.js";
import { RawLog } from "../../src/sources/live/raw-log.js";

describe("mayAnswer: the library's matching, Number(id)", () => {
  it("the same id answers its request", () => {
    assert.equal(mayAnswer(1, 1), true);
    assert.equal(mayAnswer("abc", "abc"), true);
  });

  it("strings that Number() reads as the request's number answer it too", () => {
    for (const id of [
      "1",
      " 1",
      "1\n",
      "1.0",
      "1e0",
      "0x1",
      "0b1",
      "0o1",
      "+1",
      "1.00000000000000001",
    ]) {
      assert.equal(mayAnswer(id, 1), true, JSON.stringify(id));
    }
    for (const id of ["", "  ", "-0", "0x0", "0e5"]) {
      assert.equal(mayAnswer(id, 0), true, JSON.stringify(id));
    }
    assert.equal(mayAnswer(-0, 0), true);
    assert.equal(mayAnswer(true, 1), true, "Number(true) is 1");
    assert.equal(mayAnswer(false, 0), true, "Number(false) is 0");
  });

  it("a string request id is matched the same way", () => {
    assert.equal(mayAnswer(7, "7"), true);
    assert.equal(mayAnswer("07", "7"), true);
  });

  it("ids that are no number, or another one, answer nothing else", () => {
    for (const id of ["srv-ping-0", "1a", "one", "Infinity1", "1,0", "1 1"]) {
      assert.equal(mayAnswer(id, 1), false, JSON.stringify(id));
      assert.equal(mayAnswer(id, 0), false, JSON.stringify(id));
    }
    assert.equal(mayAnswer(2, 1), false);
    assert.equal(mayAnswer("2", 1), false);
    assert.equal(mayAnswer(-1, 1), false);
    assert.equal(mayAnswer(1.5, 1), false);
    assert.equal(mayAnswer({ a: 1 }, 1), false);
    assert.equal(mayAnswer([1], 1), false, "the library's schema takes no array for an id");
    assert.equal(mayAnswer("srv-ping-0", "srv-ping-1"), false);
  });
});

describe("mayAnswerLater: a request the client numbers next", () => {
  it("a whole number above the highest sent, however written", () => {
    assert.equal(mayAnswerLater(3, 2), true);
    assert.equal(mayAnswerLater("3", 2), true);
    assert.equal(mayAnswerLater("1e3", 2), true);
    assert.equal(mayAnswerLater(0, -1), true, "before any request, 0 is next");
  });

  it("not one already sent, a negative or fractional number, or no number", () => {
    assert.equal(mayAnswerLater(2, 2), false);
    assert.equal(mayAnswerLater(-1, 2), false);
    assert.equal(mayAnswerLater(3.5, 2), false);
    assert.equal(mayAnswerLater("Infinity", 2), false);
    assert.equal(mayAnswerLater("srv-ping-0", 2), false);
  });
});

describe("RawLog: a stray response is skipped; one that may answer a request fails the read", () => {
  const response = (id: unknown) =>
    JSON.stringify({ jsonrpc: "2.0", id, error: { code: -1, message: "x" } });
  const line = (text: string) => Buffer.from(text);

  function logWithRequests(...ids: number[]) {
    const warnings: string[] = [];
    const log = new RawLog({ maxMessageBytes: 1 << 20, warn: (m) => warnings.push(m) });
    for (const id of ids) log.sent({ jsonrpc: "2.0", id, method: "tools/list" });
    return { log, warnings };
  }

  it("an id no request can be taken for: skipped with one warning, the read goes on", () => {
    const { log, warnings } = logWithRequests(0, 1);
    assert.notEqual(log.receivedLine(line(response("srv-ping-0"))), undefined);
    assert.equal(log.error, undefined);
    assert.deepEqual(warnings, [
      'the server sent a response to id "srv-ping-0", which answers no request contractpin sent, ignored',
    ]);
    log.received(response(1));
    assert.equal(log.error, undefined, "the real answer is still taken");
  });

  it("a loose match to a pending request fails, naming the request", () => {
    const { log } = logWithRequests(0, 1);
    log.received(response("0x1"));
    assert.equal(
      log.error?.message,
      'the server sent a response to id "0x1", which contractpin never sent (the MCP library takes it for the answer to request 1)',
    );
  });

  it("a loose match to a request already answered fails", () => {
    const { log } = logWithRequests(0);
    log.received(response(0));
    assert.equal(log.lastToolsListResponse()?.["id"], 0, "the answer was taken");
    log.received(response(""));
    assert.match(
      log.error?.message ?? "",
      /to id "", which contractpin never sent \(.* request 0\)$/,
    );
  });

  it("an exact second answer is a duplicate", () => {
    const { log } = logWithRequests(0);
    log.received(response(0));
    log.received(response(0));
    assert.equal(log.error?.message, "the server sent two responses to request id 0");
  });

  it("an id the client numbers next fails before it is sent", () => {
    const { log } = logWithRequests(0, 1);
    log.received(response("2"));
    assert.equal(
      log.error?.message,
      'the server sent a response to id "2", which contractpin never sent',
    );
  });

  it("a stray inside a batch is skipped, its other members read", () => {
    const { log, warnings } = logWithRequests(0);
    log.received(
      `[${response(-1)},${JSON.stringify({ jsonrpc: "2.0", id: 0, result: { tools: [] } })}]`,
    );
    assert.equal(log.error, undefined);
    assert.equal(warnings.length, 1);
    assert.deepEqual(log.lastToolsListResponse(), { jsonrpc: "2.0", id: 0, result: { tools: [] } });
  });
});
