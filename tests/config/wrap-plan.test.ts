import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parse as parseToml } from "smol-toml";
import { stripJsonc } from "../../src/config/jsonc.js";
import { memberAt } from "../../src/config/wrap/same-value.js";
import { throwsCode } from "../helpers/assert-code.js";
import { fixture } from "./fixtures.js";
import { LAUNCHER, LOCK_PATH, lockFor, lockOf, unwrapText, wrapText } from "./wrap-harness.js";

const GUARD_ARGS = (name: string) => [LAUNCHER[1], "guard", name, "--lock", LOCK_PATH];

/** wrap, then unwrap: the original text, with the wrapped one in between. */
function roundTrip(text: string, file = "mcp.json"): string {
  const wrapped = wrapText(text, lockFor(text, file), file);
  assert.notEqual(wrapped.after, text, "something was wrapped");
  assert.equal(unwrapText(wrapped.after, file).after, text, "unwrap gives back the bytes");
  return wrapped.after;
}

describe("wrap and unwrap plans", () => {
  const FILES = [
    "home/.config/Claude/claude_desktop_config.json",
    "project/.mcp.json",
    "home/.claude.json",
    "project/.vscode/mcp.json",
    "project/.cursor/mcp.json",
    "home/.cursor/mcp.json",
    "home/.codeium/windsurf/mcp_config.json",
    "home/.codex/config.toml",
    "home/.gemini/settings.json",
  ];
  for (const rel of FILES) {
    it(`${rel}: wrap then unwrap gives back the bytes; wrapping again changes nothing`, () => {
      const text = new TextDecoder().decode(fixture(rel));
      const wrapped = roundTrip(text, rel);
      const again = wrapText(wrapped, lockFor(text, rel), rel);
      assert.equal(again.after, wrapped);
      assert.ok(again.outcomes.every((o) => o.action !== "changed"));
    });
  }

  it("keeps comments, and the text outside each wrapped entry byte for byte", () => {
    const text = [
      "{",
      "  // a comment before the servers",
      '  "servers": {',
      '    /* the first */ "a": { "command": "node", "args": ["a.js"] }, // after a',
      '    "b": {',
      '      "command": "node", // why b',
      '      "args": ["b.js"],',
      "    },",
      "  },",
      '  "other": [1, 2,], // trailing commas stay',
      "}",
      "",
    ].join("\n");
    const after = roundTrip(text);
    for (const kept of [
      "  // a comment before the servers",
      '    /* the first */ "a": { ',
      " }, // after a",
      '  "other": [1, 2,], // trailing commas stay',
    ]) {
      assert.ok(after.includes(kept), kept);
    }
    // A one-line entry stays on one line; a multi-line one keeps its indentation.
    assert.match(
      after,
      /"a": \{ "command": "\/usr\/bin\/node", "args": \[.*\], "env": \{ "CONTRACTPIN_WRAPPED_ENTRY": ".*" \} \}, \/\/ after a\n/,
    );
    assert.ok(after.includes('\n    "b": {\n      "command": "/usr/bin/node",\n      "args": ['));
    const servers = JSON.parse(stripJsonc(after)).servers;
    assert.deepEqual(servers.b.args, GUARD_ARGS("b"));
  });

  it("comments with characters outside ASCII before an entry do not shift it", () => {
    const text =
      '{\n  // café ✓ 😀\n  "servers": {\n    /* é */ "a": {"command": "node"}\n  }\n}\n';
    const after = roundTrip(text);
    assert.ok(
      after.startsWith(
        '{\n  // café ✓ 😀\n  "servers": {\n    /* é */ "a": { "command": "/usr/bin/node"',
      ),
    );
  });

  it("CRLF line ends, a byte order mark and tab indentation survive the round trip", () => {
    const text =
      '\ufeff{\r\n\t"mcpServers": {\r\n\t\t"m": {\r\n\t\t\t"command": "node",\r\n\t\t\t"args": ["m.js"]\r\n\t\t}\r\n\t}\r\n}';
    const after = roundTrip(text);
    assert.ok(after.startsWith("\ufeff{\r\n"));
    assert.ok(!/[^\r]\n/.test(after), "every line ends in CRLF");
    assert.match(after, /\r\n\t\t\t"command": "\/usr\/bin\/node",\r\n/);
  });

  it("keeps the keys that are not about the transport, in their order", () => {
    const text =
      '{"mcpServers": {"g": {"timeout": 5000, "command": "node", "args": ["g.js"], "trust": false, "disabled": false}}}';
    const after = roundTrip(text);
    const entry = JSON.parse(after).mcpServers.g;
    assert.deepEqual(Object.keys(entry), [
      "timeout",
      "command",
      "args",
      "env",
      "trust",
      "disabled",
    ]);
  });

  it("an HTTP entry becomes a stdio entry launching the guard, with the literal header value the lock refers to", () => {
    const text =
      '{"mcpServers": {"h": {"type": "http", "url": "https://mcp.example.com/mcp", "headers": {"X-Api-Key": "abc123secretvalue"}}}}';
    const after = roundTrip(text);
    const entry = JSON.parse(after).mcpServers.h;
    assert.equal(entry.type, "stdio");
    assert.equal(entry.command, LAUNCHER[0]);
    assert.equal(entry.url, undefined);
    assert.equal(entry.headers, undefined);
    // The lock sends X-Api-Key: ${H_X_API_KEY}; the guard gets that variable from the entry.
    assert.equal(lockFor(text).servers["h"]!.transport, "http");
    assert.equal(entry.env.H_X_API_KEY, "abc123secretvalue");
  });

  it("gives the guard each variable the lock refers to, spelled as the client spelled it", () => {
    const vscode = JSON.parse(
      stripJsonc(
        wrapText(
          new TextDecoder().decode(fixture("project/.vscode/mcp.json")),
          undefined,
          "mcp.json",
        ).after,
      ),
    );
    assert.equal(
      vscode.servers.perplexity.env.CONTRACTPIN_INPUT_PERPLEXITY_KEY,
      "${input:perplexity-key}",
    );
    assert.equal(vscode.servers["github-remote"].env.GITHUB_TOKEN, "${env:GITHUB_TOKEN}");
    const gemini = JSON.parse(
      wrapText(new TextDecoder().decode(fixture("home/.gemini/settings.json"))).after,
    );
    assert.equal(gemini.mcpServers["gemini-github"].env.GITHUB_TOKEN, "$GITHUB_TOKEN");
    assert.equal(gemini.mcpServers["gemini-memory"].trust, false);
    const text = new TextDecoder().decode(fixture("home/.codex/config.toml"));
    const codex = parseToml(wrapText(text, lockFor(text, "c.toml"), "c.toml").after);
    const docs = (...path: string[]) => memberAt(codex, ["mcp_servers", "openai-docs", ...path]);
    assert.deepEqual(docs("env_vars"), ["OPENAI_ORG_ID", "OPENAI_DOCS_TOKEN"]);
    assert.equal(docs("env", "OPENAI_DOCS_X_CLIENT_NAME"), "codex");
    const memory = (key: string) => memberAt(codex, ["mcp_servers", "codex-memory", key]);
    assert.equal(memory("startup_timeout_sec"), 20);
    assert.deepEqual(memory("args"), GUARD_ARGS("codex-memory"));
  });

  it("TOML: keeps other sub-tables and comments; a file without a final line break keeps none", () => {
    const text = [
      "# top",
      "[mcp_servers.t]",
      'command = "node" # inline comment',
      "args = [",
      '  "t.js", # the script',
      "]",
      "",
      "[mcp_servers.t.env]",
      'MODE = "x"',
      "",
      "[mcp_servers.t.tools.search]",
      "approval = 'never'",
    ].join("\n");
    const after = roundTrip(text, "c.toml");
    assert.ok(after.startsWith("# top\n[mcp_servers.t]\n"));
    assert.ok(after.endsWith("[mcp_servers.t.tools.search]\napproval = 'never'"));
    const t = (...path: string[]) => memberAt(parseToml(after), ["mcp_servers", "t", ...path]);
    assert.equal(t("tools", "search", "approval"), "never");
    assert.equal(t("env", "MODE"), undefined, "the lock's env is the guard's to give the server");
  });

  it("an entry the lock does not pin, or pins as something else, is left alone", () => {
    const text =
      '{"mcpServers": {"a": {"command": "node", "args": ["a.js"]}, "b": {"command": "node", "args": ["b.js"], "env": {"K": "1"}}, "c": {"command": "node"}}}';
    const lock = lockOf({
      a: { transport: "stdio", command: ["node", "other.js"] },
      b: { transport: "stdio", command: ["node", "b.js"], env: { K: "2" } },
      f: { transport: "file", path: "f.json" },
    });
    const plan = wrapText(text, lock);
    assert.equal(plan.after, text);
    const why = Object.fromEntries(plan.outcomes.map((o) => [o.name, [o.reason, o.missed]]));
    assert.deepEqual(why, {
      a: [
        "its command is not what the lock pins (wrapping it would guard a different server)",
        true,
      ],
      b: ["its env is not what the lock pins (wrapping it would guard a different server)", true],
      c: ["not pinned in the lock", false],
    });
    const http = wrapText('{"mcpServers": {"a": {"url": "https://x.example/mcp"}}}', lock);
    assert.match(http.outcomes[0]!.reason, /its transport is not what the lock pins/);
  });

  it("~/.claude.json: both scopes are wrapped; a user-scope entry under a local one is left alone", () => {
    const plan = wrapText(new TextDecoder().decode(fixture("home/.claude.json")));
    const scratch = plan.outcomes.filter((o) => o.name === "scratch");
    assert.deepEqual(
      scratch.map((o) => [o.action, o.missed]),
      [
        ["left", false],
        ["changed", false],
      ],
    );
    assert.match(scratch[0]!.reason, /^overridden by the entry of the same name in projects/);
    const doc = JSON.parse(plan.after);
    assert.equal(doc.projects["/work/project"].mcpServers["local-memory"].command, LAUNCHER[0]);
    assert.equal(doc.mcpServers["user-memory"].command, LAUNCHER[0]);
    assert.equal(doc.mcpServers.scratch.command, "npx");
    assert.equal(
      doc.projects["/home/someone/other-project"].mcpServers["other-project-db"].command,
      "npx",
    );
  });

  it("a TOML entry written as an inline table cannot be edited: left alone, and counted as missed", () => {
    const text = '[mcp_servers]\nm = { command = "node", args = ["m.js"] }\n';
    const plan = wrapText(text, lockFor(text, "c.toml"), "c.toml");
    assert.equal(plan.after, text);
    assert.deepEqual(
      plan.outcomes.map((o) => [o.reason, o.missed]),
      [["wrap cannot edit this entry as it is written", true]],
    );
  });

  it("unwrap of a file with nothing wrapped changes nothing; an invalid file is CONFIG_INVALID", () => {
    const text = new TextDecoder().decode(fixture("project/.mcp.json"));
    assert.equal(unwrapText(text).after, text);
    throwsCode(
      () => wrapText('{"mcpServers": {"a": {"command": "x"}, "a": {}}}', lockOf({})),
      "CONFIG_INVALID",
    );
    throwsCode(() => unwrapText('{"nothing": {}}'), "CONFIG_INVALID");
  });

  for (const [file, text] of [
    [
      "mcp.json",
      '{\n  "mcpServers": {\n    "a": { "command": "node", "args": ["a.js"] },\n    "b": { "command": "node", "args": ["b.js"] }\n  }\n}\n',
    ],
    [
      "config.toml",
      '[mcp_servers.a]\ncommand = "node"\nargs = ["a.js"]\n\n[mcp_servers.b]\ncommand = "node"\nargs = ["b.js"]\n',
    ],
  ] as const) {
    it(`${file}: a file with a wrapped entry beside an unwrapped one is wrapped; the wrapped one stays byte for byte`, () => {
      const all = lockFor(text, file);
      const onlyA = { ...all, servers: { a: all.servers["a"]! } };
      const first = wrapText(text, onlyA, file);
      assert.deepEqual(
        first.outcomes.map((o) => [o.name, o.action]),
        [
          ["a", "changed"],
          ["b", "left"],
        ],
      );
      const wrappedA = first.edits[0]!.text;
      const second = wrapText(first.after, all, file);
      assert.deepEqual(
        second.outcomes.map((o) => [o.name, o.action, o.reason]),
        [
          ["a", "unchanged", "already wrapped"],
          ["b", "changed", "wrapped"],
        ],
      );
      assert.equal(second.edits.length, 1);
      assert.ok(second.after.includes(wrappedA), "a's wrapped entry is kept as it was");
      // The same file as wrapping both at once, and unwrap gives back the original bytes.
      assert.equal(second.after, wrapText(text, all, file).after);
      assert.equal(unwrapText(second.after, file).after, text);
    });
  }
});
