/* eslint-disable @typescript-eslint/no-explicit-any -- edits reach anywhere in a parsed lock */
// The lock's version 2 (SPEC.md 10.4): a server's `surface` validated as
// strictly as its tools, and the version saying exactly whether any server
// pins more than tools. Expected digests come from tests/vectors.json.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { serverDigest, type ServerDigests } from "../../../src/core/contract/digest.js";
import type { JsonValue } from "../../../src/core/json/json-value.js";
import { renderLock, validateLock, type Lock } from "../../../src/core/lock/lock.js";
import { parseJson } from "../../../src/core/json/strict-json.js";
import { throwsCode } from "../../helpers/assert-code.js";

const file = parseJson(readFileSync(new URL("../../vectors.json", import.meta.url))) as unknown as {
  surfaces: { name: string; result: ServerDigests }[];
  servers: { name: string; result: ServerDigests }[];
};
const surfaceServer = file.surfaces.find((s) => s.name === "surface-everything")!.result;
const toolsServer = file.servers.find((s) => s.name === "server-one-tool")!.result;

function lockOf(version: string, servers: Record<string, unknown>): JsonValue {
  return {
    contractpin: version,
    algorithm: "sha256",
    canonicalization: "contractpin-canonical-json/1",
    generated_at: "2026-01-01T00:00:00Z",
    servers,
  } as unknown as JsonValue;
}
const at = (result: unknown) => ({ transport: "file", path: "d.json", ...(result as object) });
const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

describe("lock version 2", () => {
  it("renders version 1 while every server pins only tools, 2 once one pins its surface", () => {
    const v1: Lock = validateLock(lockOf("1", { a: at(toolsServer) }));
    assert.match(renderLock(v1), /"contractpin": "1"/);
    assert.doesNotMatch(renderLock(v1), /surface/);
    const v2 = validateLock(lockOf("2", { a: at(toolsServer), b: at(surfaceServer) }));
    assert.match(renderLock(v2), /"contractpin": "2"/);
    assert.deepEqual(validateLock(parseJson(renderLock(v2))), v2);
  });
  it("a version 1 lock with a surface is corrupt (version 1 has no such key)", () => {
    throwsCode(() => validateLock(lockOf("1", { b: at(surfaceServer) })), "LOCK_CORRUPT");
  });
  it("a version 2 lock in which no server pins a surface is corrupt", () => {
    throwsCode(() => validateLock(lockOf("2", { a: at(toolsServer) })), "LOCK_CORRUPT");
  });
  it("a version it does not know is refused", () => {
    throwsCode(() => validateLock(lockOf("4", {})), "LOCK_VERSION_UNSUPPORTED");
  });
  const edits: [string, (s: Record<string, any>) => void, RegExp][] = [
    [
      "the server digest as for tools only",
      (s) => (s.digest = toolsDigestOf(s)),
      /digest of its surface/,
    ],
    [
      "instructions digest edited",
      (s) => (s.surface.instructions = s.tools.echo.digest),
      /servers\.b\.digest/,
    ],
    [
      "instructions missing",
      (s) => delete s.surface.instructions,
      /surface\.instructions is missing/,
    ],
    ["prompts missing", (s) => delete s.surface.prompts, /surface\.prompts is missing/],
    ["an unknown key", (s) => (s.surface.tools = null), /surface\.tools is not a key/],
    ["a prompt count off", (s) => (s.surface.prompts.count = 3), /prompts\.count is 3/],
    [
      "an unknown key in a list",
      (s) => (s.surface.prompts.extra = 1),
      /surface\.prompts\.extra is not a key/,
    ],
    [
      "an unknown key in a list's item",
      (s) => (s.surface.prompts.items.simple.extra = s.digest),
      /surface\.prompts\.items\.simple\.extra is not a key/,
    ],
    [
      "a list digest with characters after its 64 hex digits",
      (s) => (s.surface.prompts.digest += "0"),
      /surface\.prompts\.digest must be "sha256:" followed by 64 lowercase hex digits/,
    ],
    [
      "a prompt removed",
      (s) => {
        delete s.surface.prompts.items.simple;
        s.surface.prompts.count = 1;
      },
      /prompts\.digest does not match/,
    ],
    [
      "a field that is no prompt field",
      (s) => (s.surface.prompts.items.simple.fields.inputSchema = s.digest),
      /fields\.inputSchema is not a contract field/,
    ],
  ];
  for (const [name, edit, message] of edits) {
    it(`corrupt: ${name}`, () => {
      const server = clone(at(surfaceServer)) as Record<string, any>;
      edit(server);
      assert.throws(() => validateLock(lockOf("2", { b: server })), message);
    });
  }
});

function toolsDigestOf(s: Record<string, any>): string {
  const names: Record<string, string> = {};
  for (const [name, tool] of Object.entries(s.tools as Record<string, { digest: string }>))
    names[name] = tool.digest;
  return serverDigest(names);
}
