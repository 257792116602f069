import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { importConfig } from "../../src/config/import-config.js";
import { readConfigDocument } from "../../src/config/read-document.js";
import { throwsCode } from "../helpers/assert-code.js";
import { rawFixture } from "./fixtures.js";

const enc = (s: string) => new TextEncoder().encode(s);
const options = { projectDir: "/p" };

describe("malformed config files", () => {
  it("JSON: CONFIG_INVALID naming the file, the byte offset, line and column", () => {
    const message = throwsCode(
      () => importConfig(rawFixture("invalid/malformed.json"), "invalid/malformed.json", options),
      "CONFIG_INVALID",
    );
    assert.match(message, /^invalid\/malformed\.json: not valid JSON: /);
    assert.match(message, /at byte 96 \(\$\.mcpServers\.broken\.args\) \(line 6, column 7\)$/);
  });

  it("JSON: the position of a plain syntax error", () => {
    const message = throwsCode(
      () => readConfigDocument(enc('{\n  "mcpServers": {\n    "a": tru\n  }\n}'), "x.json"),
      "CONFIG_INVALID",
    );
    assert.match(message, /^x\.json: not valid JSON: .* at byte 29 .*\(line 3, column 10\)$/);
  });

  it("TOML: CONFIG_INVALID naming the file, line and column, quoting none of the file", () => {
    const message = throwsCode(
      () => importConfig(rawFixture("invalid/malformed.toml"), "config.toml", options),
      "CONFIG_INVALID",
    );
    assert.match(message, /^config\.toml: not valid TOML: .* at line 4, column 1$/);
    assert.ok(!message.includes("TOKEN"), message);
    assert.ok(!message.includes("\n"));
  });

  it("TOML: a duplicate key and invalid UTF-8", () => {
    throwsCode(() => readConfigDocument(enc("a = 1\na = 2\n"), "c.toml"), "CONFIG_INVALID");
    const message = throwsCode(
      () => readConfigDocument(new Uint8Array([0x61, 0x3d, 0xff]), "c.toml"),
      "CONFIG_INVALID",
    );
    assert.match(message, /not UTF-8/);
  });

  it("JSON: invalid UTF-8, a lone surrogate, a duplicate key", () => {
    throwsCode(
      () => readConfigDocument(new Uint8Array([0x7b, 0xff, 0x7d]), "a.json"),
      "CONFIG_INVALID",
    );
    throwsCode(() => readConfigDocument(enc('{"a": "\\ud800"}'), "a.json"), "CONFIG_INVALID");
    const message = throwsCode(
      () => readConfigDocument(enc('{"a": 1, "a": 2}'), "a.json"),
      "CONFIG_INVALID",
    );
    assert.match(message, /duplicate member name "a"/);
  });
});

describe("JSONC", () => {
  it("comments and trailing commas are accepted", () => {
    const doc = readConfigDocument(
      enc('// VS Code\n{"servers": {"a": {"command": "x",},},}'),
      "m.json",
    );
    assert.deepEqual(doc, { syntax: "json", value: { servers: { a: { command: "x" } } } });
  });

  it("a duplicate key in a JSONC file is still rejected, at its position", () => {
    const message = throwsCode(
      () => readConfigDocument(rawFixture("invalid/jsonc-duplicate-key.json"), "dup.json"),
      "CONFIG_INVALID",
    );
    assert.match(message, /duplicate member name "twice" at byte 142 .*\(line 5, column 5\)$/);
  });

  it("a lone surrogate in a JSONC file is still rejected", () => {
    throwsCode(
      () => readConfigDocument(enc('{ // c\n "a": "\\udc00" }'), "a.json"),
      "CONFIG_INVALID",
    );
  });

  it("a byte order mark is accepted; offsets count its bytes, columns do not", () => {
    const bom = [0xef, 0xbb, 0xbf];
    const doc = readConfigDocument(
      new Uint8Array([...bom, ...enc('{"mcpServers": {}}')]),
      "a.json",
    );
    assert.equal(doc.syntax, "json");
    const message = throwsCode(
      () => readConfigDocument(new Uint8Array([...bom, ...enc('{"a": x}')]), "a.json"),
      "CONFIG_INVALID",
    );
    assert.match(message, /at byte 9 .*\(line 1, column 7\)$/);
  });
});
