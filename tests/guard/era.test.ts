// The 2026-07-28 helpers of the guard: the envelope it copies and the HTTP
// headers it derives from a message (SEP-2243 value encoding, by hand).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { JsonObject } from "../../src/core/json/json-value.js";
import { parseJson } from "../../src/core/json/strict-json.js";
import { envelopeOf, headerValue, standardHeaders } from "../../src/guard/wire/era.js";

const parse = (text: string) => parseJson(Buffer.from(text, "utf8"));

describe("standardHeaders", () => {
  it("mirrors method, version and the tool name of a 2026-07-28 tools/call", () => {
    const call = parse(
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"get-sum"}}',
    );
    assert.deepEqual(standardHeaders(call), {
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": "get-sum",
    });
  });

  it("takes Mcp-Name from params.uri for resources/read and sends none for tools/list", () => {
    const meta = '"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}';
    const read = parse(`{"id":2,"method":"resources/read","params":{${meta},"uri":"file:///a b"}}`);
    assert.equal(standardHeaders(read)["mcp-name"], "file:///a b");
    const list = parse(`{"id":3,"method":"tools/list","params":{${meta},"cursor":"p2"}}`);
    assert.deepEqual(Object.keys(standardHeaders(list)), ["mcp-protocol-version", "mcp-method"]);
  });

  it("adds nothing to 2025-era messages, responses and batches", () => {
    assert.deepEqual(
      standardHeaders(parse('{"id":1,"method":"tools/call","params":{"name":"x"}}')),
      {},
    );
    assert.deepEqual(standardHeaders(parse('{"id":1,"result":{}}')), {});
    assert.deepEqual(standardHeaders(parse("[]")), {});
  });
});

describe("headerValue", () => {
  it("passes plain ASCII and wraps anything else in the base64 sentinel", () => {
    assert.equal(headerValue("echo"), "echo");
    // "é" is UTF-8 C3 A9, which is base64 "w6k=".
    assert.equal(headerValue("é"), "=?base64?w6k=?=");
    // " a" is 20 61: "IGE=".
    assert.equal(headerValue(" a"), "=?base64?IGE=?=");
    assert.equal(headerValue(""), "=?base64??=");
    // A value that already looks encoded is encoded again: "=?base64?x?=" is 3D 3F 62 61 73 65 36 34 3F 78 3F 3D.
    assert.equal(headerValue("=?base64?x?="), "=?base64?PT9iYXNlNjQ/eD89?=");
  });
});

describe("envelopeOf", () => {
  it("keeps the version, client info and capabilities, never a log level or progress token", () => {
    const request = parse(
      '{"id":1,"method":"tools/list","params":{"_meta":{"progressToken":7,"io.modelcontextprotocol/logLevel":"debug","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"sampling":{}},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"}}}}',
    );
    assert.deepEqual(envelopeOf(request as JsonObject), {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientInfo": { name: "c", version: "1" },
      "io.modelcontextprotocol/clientCapabilities": { sampling: {} },
    });
    assert.equal(
      envelopeOf(parse('{"id":1,"method":"tools/list","params":{}}') as JsonObject),
      undefined,
    );
  });
});
