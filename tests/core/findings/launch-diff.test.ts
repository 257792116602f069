import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { runnerPackage } from "../../../src/core/source/package-runner.js";
import { diffChars } from "../../../src/core/findings/diff-text.js";
import {
  confusablePackageNames,
  diffLaunch,
  launchLine,
  markValues,
  packageSkeleton,
  renderMarked,
} from "../../../src/core/findings/launch-diff.js";

const stdio = (command: string[], more: { env?: Record<string, string>; cwd?: string } = {}) =>
  launchLine({ transport: "stdio", command, ...more });

describe("diffChars", () => {
  it("marks the one character that differs", () => {
    assert.deepEqual(diffChars("protocol/x", "protocoI/x"), [
      { kind: "equal", text: "protoco" },
      { kind: "removed", text: "l" },
      { kind: "added", text: "I" },
      { kind: "equal", text: "/x" },
    ]);
  });

  it("reads two unrelated words as one replacement, not as their shared letters", () => {
    assert.deepEqual(diffChars("@acme/files", "@evil/files"), [
      { kind: "equal", text: "@" },
      { kind: "removed", text: "acme" },
      { kind: "added", text: "evil" },
      { kind: "equal", text: "/files" },
    ]);
  });

  it("puts an added or removed item between JSON's items, not across its quotes", () => {
    const render = (a: string, b: string) =>
      diffChars(a, b)
        .map((r) =>
          r.kind === "equal" ? r.text : r.kind === "added" ? `{+${r.text}+}` : `[-${r.text}-]`,
        )
        .join("");
    assert.equal(
      render('["node","x.js"]', '["node","--flag","x.js"]'),
      '["node",{+"--flag",+}"x.js"]',
    );
    assert.equal(render('["a","b"]', '["a","b","c"]'), '["a","b"{+,"c"+}]');
    assert.equal(render('["a","b","c"]', '["a","c"]'), '["a",[-"b",-]"c"]');
  });

  it("never splits a code point outside the BMP", () => {
    const runs = diffChars("a\u{1D400}b", "a\u{1D401}b");
    assert.deepEqual(runs, [
      { kind: "equal", text: "a" },
      { kind: "removed", text: "\u{1D400}" },
      { kind: "added", text: "\u{1D401}" },
      { kind: "equal", text: "b" },
    ]);
  });

  it("gives back both texts: equal and removed runs make the old one, equal and added the new", () => {
    const pairs = [
      ["npx -y @a/b@1.0.0", "npx --yes @a/b@1.2.0 --flag"],
      ["", "x"],
      ["same", "same"],
      ["https://api.example/mcp", "https://api.example.evil/mcp?x=1"],
    ] as const;
    for (const [a, b] of pairs) {
      const runs = diffChars(a, b);
      const side = (skip: string) =>
        runs
          .filter((r) => r.kind !== skip)
          .map((r) => r.text)
          .join("");
      assert.equal(side("added"), a);
      assert.equal(side("removed"), b);
    }
  });
});

describe("diffLaunch", () => {
  it("names each part that changed, with both values whole and marked", () => {
    const pinned = stdio(["npx", "-y", "@modelcontextprotocol/server-filesystem@2026.8.31", "."], {
      env: { A: "1", B: "${B}" },
    });
    const other = stdio(["npx", "-y", "@modelcontextprotocoI/server-filesystem@2026.8.31", "."], {
      env: { A: "2", C: "x" },
      cwd: "sub",
    });
    const diff = diffLaunch(pinned, other, runnerPackage);
    assert.deepEqual(
      diff.changed.map((c) => [c.part, c.before, c.after]),
      [
        [
          "command",
          ["npx", "-y", "@modelcontextprotocol/server-filesystem@2026.8.31", "."],
          ["npx", "-y", "@modelcontextprotocoI/server-filesystem@2026.8.31", "."],
        ],
        ["env", ["A", "B"], ["A", "C"]],
        ["cwd", undefined, "sub"],
      ],
    );
    const command = diff.changed[0]!;
    assert.equal(
      renderMarked(command.marked.before),
      '["npx","-y","@modelcontextprotoco[-l-]/server-filesystem@2026.8.31","."]',
    );
    assert.equal(
      renderMarked(command.marked.after),
      '["npx","-y","@modelcontextprotoco{+I+}/server-filesystem@2026.8.31","."]',
    );
    assert.equal(renderMarked(diff.changed[2]!.marked.before), "(absent)");
    assert.deepEqual(diff.lookAlike && { ...diff.lookAlike, marked: undefined }, {
      ecosystem: "npm",
      pinned: "@modelcontextprotocol/server-filesystem",
      other: "@modelcontextprotocoI/server-filesystem",
      argIndex: 2,
      marked: undefined,
    });
  });

  it("compares the names of variables and headers, never their values", () => {
    const a = launchLine({
      transport: "http",
      url: "https://x.example/mcp",
      headers: { Auth: "a" },
    });
    const b = launchLine({
      transport: "http",
      url: "https://x.example/mcp",
      headers: { Auth: "b" },
    });
    assert.deepEqual(diffLaunch(a, b, runnerPackage), { changed: [] });
    const c = launchLine({
      transport: "http",
      url: "https://x.example/mcp",
      headers: { Autth: "a" },
    });
    assert.deepEqual(
      diffLaunch(a, c, runnerPackage).changed.map((ch) => [ch.part, ch.before, ch.after]),
      [["headers", ["Auth"], ["Autth"]]],
    );
  });

  it("a changed version of the same package is no look-alike", () => {
    const diff = diffLaunch(
      stdio(["npx", "-y", "@acme/files@1.0.0"]),
      stdio(["npx", "-y", "@acme/files@1.0.1"]),
      runnerPackage,
    );
    assert.equal(diff.changed.length, 1);
    assert.equal(diff.lookAlike, undefined);
  });

  it("another package is a change, not a look-alike", () => {
    const diff = diffLaunch(
      stdio(["npx", "-y", "@acme/files@1.0.0"]),
      stdio(["npx", "-y", "@evil/files@1.0.0"]),
      runnerPackage,
    );
    assert.equal(diff.lookAlike, undefined);
  });

  it("finds look-alike images and Python packages, across uvx and pipx", () => {
    const image = diffLaunch(
      stdio(["docker", "run", "-i", "--rm", "mcp/fetch:1.0"]),
      stdio(["docker", "run", "-i", "--rm", "mcp/fetcn:1.0"]),
      runnerPackage,
    );
    assert.equal(image.lookAlike, undefined, "h and n are not confusable");
    const image2 = diffLaunch(
      stdio(["docker", "run", "-i", "--rm", "mcp/fetch:1.0"]),
      stdio(["docker", "run", "-i", "--rm", "mcp-fetch:1.0"]),
      runnerPackage,
    );
    assert.equal(image2.lookAlike?.other, "mcp-fetch");
    assert.equal(image2.lookAlike?.argIndex, 4);
    const python = diffLaunch(
      stdio(["uvx", "mcp-server-fetch@1.0"]),
      stdio(["pipx", "run", "--spec", "mcp-server-fetcһ==1.0", "mcp-server-fetch"]),
      runnerPackage,
    );
    assert.equal(python.lookAlike?.pinned, "mcp-server-fetch");
    assert.equal(python.lookAlike?.ecosystem, "pipx");
  });

  it("compares packages of one registry only", () => {
    const diff = diffLaunch(
      stdio(["npx", "-y", "mcp-server-fetch@1.0.0"]),
      stdio(["uvx", "mcp_server_fetch@1.0.0"]),
      runnerPackage,
    );
    assert.equal(diff.lookAlike, undefined);
  });
});

describe("confusablePackageNames", () => {
  const cases: [string, string, boolean][] = [
    ["@modelcontextprotocol/server-memory", "@modelcontextprotocoI/server-memory", true],
    ["@modelcontextprotocol/server-memory", "@modelcontextprotocol/server-rnemory", true],
    ["@modelcontextprotocol/server-memory", "@modelcontextprotocol/servermemory", true],
    ["@modelcontextprotocol/server-memory", "@modelcontextprotoc0l/server-memory", true],
    ["@modelcontextprotocol/server-memory", "modelcontextprotocol-server-memory", true],
    ["@modelcontextprotocol/server-memory", "@modelcontextprotocol/server-mеmory", true], // Cyrillic е
    ["@modelcontextprotocol/server-memory", "@modelcontextprotocol/Server-Memory", true],
    ["@modelcontextprotocol/server-memory", "@modelcontextprotocol/server-memory", false],
    ["@modelcontextprotocol/server-memory", "@modelcontextprotocol/server-everything", false],
    ["@modelcontextprotocol/server-memory", "@modelcontextprotocol/server-memoryx", false],
  ];
  for (const [a, b, expected] of cases) {
    it(`${a} / ${b}: ${expected}`, () => {
      assert.equal(confusablePackageNames(a, b, "npm"), expected);
    });
  }

  it("names PyPI reads as one package (PEP 503) are the same package, not look-alikes", () => {
    assert.equal(confusablePackageNames("mcp-server-fetch", "MCP_Server.Fetch", "python"), false);
    assert.equal(confusablePackageNames("mcp-server-fetch", "mcp-server-fetcһ", "python"), true);
    assert.equal(confusablePackageNames("mcp-server-fetch", "mcpserverfetch", "python"), true);
  });

  it("the skeleton folds a capital I and a digit one into l", () => {
    assert.equal(packageSkeleton("I1l"), "lll");
    assert.equal(packageSkeleton("@a/b-c_d.e"), "abcde");
  });
});

describe("markValues and renderMarked", () => {
  it("server text stays data: controls are shown as <U+XXXX>, markers in the value are not the diff's", () => {
    const marked = markValues("a\u202Eb", "a+} [-x-] {+b");
    const before = renderMarked(marked.before);
    const after = renderMarked(marked.after);
    assert.doesNotMatch(before + after, /\u202E/u);
    assert.match(before, /<U\+202E>/u);
    // The only diff markers are the diff's own: one removed run, one added run.
    assert.equal(before.match(/\[-/g)?.length, 1);
    assert.equal(after.match(/\{\+/g)?.length, 1);
    assert.equal(after.match(/\[-/g), null);
  });

  it("paints the marked runs only when asked", () => {
    const marked = markValues("ab", "aB");
    const paint = { removed: (s: string) => `<r>${s}</r>`, added: (s: string) => `<g>${s}</g>` };
    assert.equal(renderMarked(marked.before, paint), '"a<r>[-b-]</r>"');
    assert.equal(renderMarked(marked.after, paint), '"a<g>{+B+}</g>"');
    assert.equal(renderMarked(marked.after), '"a{+B+}"');
  });
});
