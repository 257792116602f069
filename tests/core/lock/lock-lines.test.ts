// The line of a server's and a tool's entry in a lock (issue 12: SARIF
// results and annotations point at it). Checked against the writer's own
// output with names chosen to confuse a text search, against an oracle that
// reads the writer's layout by indentation, and on hand-formatted text.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { lockLines } from "../../../src/core/lock/lock-lines.js";
import { renderLock, type Lock, type PinnedServer } from "../../../src/core/lock/lock.js";
import { escapeHiddenJson } from "../../../src/core/json/pretty-json.js";
import { FC_SEED } from "../../helpers/fc-seed.js";

const DIGEST = `sha256:${"a".repeat(64)}` as const;

/** A lock (not a valid one: digests are fake) with these servers and tool names. */
function lock(servers: Record<string, string[]>): Lock {
  const out: Record<string, PinnedServer> = {};
  for (const [name, tools] of Object.entries(servers)) {
    const digests: PinnedServer["tools"] = {};
    for (const tool of tools)
      Object.defineProperty(digests, tool, {
        value: { digest: DIGEST, fields: { description: DIGEST, name: DIGEST } },
        enumerable: true,
      });
    Object.defineProperty(out, name, {
      value: {
        transport: "stdio",
        command: ["node", "server.js", '"tools": {'],
        tool_count: tools.length,
        digest: DIGEST,
        tools: digests,
      },
      enumerable: true,
    });
  }
  return { generated_at: "2026-12-01T00:00:00Z", servers: out };
}

/**
 * The oracle: in the writer's layout a server's key is the line indented by
 * 4 spaces that is exactly `"NAME": {`, under the `"servers": {` line; a
 * tool's key is indented by 8, after its server's `"tools": {` line. A key
 * is written as JSON with its hidden characters escaped (renderLock).
 */
function oracle(text: string, server: string, tool?: string): number {
  const lines = text.split("\n");
  const serverLine = lines.indexOf(`    ${key(server)}: {`);
  assert.ok(serverLine >= 0, `oracle: no line for server ${server}`);
  if (tool === undefined) return serverLine + 1;
  const tools = lines.indexOf(`      "tools": {`, serverLine);
  const toolLine = lines.indexOf(`        ${key(tool)}: {`, tools);
  assert.ok(toolLine >= 0, `oracle: no line for tool ${tool}`);
  return toolLine + 1;
}

function key(name: string): string {
  return escapeHiddenJson(JSON.stringify(name));
}

describe("lockLines", () => {
  it("finds each server and tool in the writer's output, whatever the names", () => {
    const servers = {
      tools: ["servers", "tools", "digest"],
      servers: ["tools"],
      ["__proto__"]: ["constructor", "__proto__"],
      'quote"d \\ back': ['a"b', "c\\", "\u2028line sep", "tab\there"],
      "né \u{1F600}": ["tool", "\u202e"],
    };
    const text = renderLock(lock(servers));
    const lines = lockLines(text);
    for (const [server, tools] of Object.entries(servers)) {
      assert.equal(lines.server(server), oracle(text, server), server);
      for (const tool of tools) {
        assert.equal(lines.tool(server, tool), oracle(text, server, tool), `${server}/${tool}`);
      }
    }
  });

  it("agrees with the oracle on random names", () => {
    const name = fc.string({ unit: "binary", minLength: 1, maxLength: 8 });
    fc.assert(
      fc.property(
        fc.dictionary(name, fc.uniqueArray(name, { maxLength: 4 }), { maxKeys: 4 }),
        (servers) => {
          const text = renderLock(lock(servers));
          const lines = lockLines(text);
          for (const [server, tools] of Object.entries(servers)) {
            assert.equal(lines.server(server), oracle(text, server));
            for (const tool of tools)
              assert.equal(lines.tool(server, tool), oracle(text, server, tool));
          }
        },
      ),
      { seed: FC_SEED, numRuns: 300 },
    );
  });

  it("falls back: an unknown tool to its server's line, an unknown server to line 1", () => {
    const text = renderLock(lock({ docs: ["search"] }));
    const lines = lockLines(text);
    assert.equal(lines.tool("docs", "nope"), oracle(text, "docs"));
    assert.equal(lines.server("nope"), 1);
    assert.equal(lines.tool("nope", "search"), 1);
  });

  it("follows a hand-formatted lock: one line, CRLF, CR, odd spacing", () => {
    const compact = JSON.stringify({
      servers: { docs: { tools: { search: { digest: DIGEST } } } },
    });
    assert.equal(lockLines(compact).tool("docs", "search"), 1);
    const crlf = '{\r\n"servers":{\r\n "docs" :\r\n {"tools":\r\n{\r\n\r\n  "search":{}}}}}';
    assert.equal(lockLines(crlf).server("docs"), 3);
    assert.equal(lockLines(crlf).tool("docs", "search"), 7);
    const cr = '{\r"servers":{"docs":{"tools":{\r"search":{}}}}}';
    assert.equal(lockLines(cr).tool("docs", "search"), 3);
  });

  it("never throws, and gives line 1, for text that is not a lock", () => {
    for (const text of ["", "not json", '{"servers": {"docs": {"tools": {"x', "[1, 2", "}}}]]"]) {
      const lines = lockLines(text);
      assert.equal(lines.tool("docs", "x"), 1, JSON.stringify(text));
    }
    // A lock cut short still gives what it got to.
    const cut = '{\n  "servers": {\n    "docs": {\n      "tools": {\n        "x';
    assert.equal(lockLines(cut).server("docs"), 3);
  });

  it("ignores look-alikes: a key in a string value, a name under another member", () => {
    const text = [
      "{",
      '  "note": "\\"servers\\": {\\"docs\\": {",',
      '  "other": {"servers": {"docs": {}}},',
      '  "servers": {',
      '    "docs": {',
      '      "command": ["\\"tools\\"", {"tools": {"search": 1}}],',
      '      "tools": {',
      '        "search": {}',
      "      }",
      "    }",
      "  }",
      "}",
    ].join("\n");
    const lines = lockLines(text);
    assert.equal(lines.server("docs"), 5);
    assert.equal(lines.tool("docs", "search"), 8);
  });
});
