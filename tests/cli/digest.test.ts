import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { tempDir } from "../helpers/cleanup.js";
import { oneLine, pythonDigest, ROOT, runCli } from "../helpers/cli.js";

const example = join(ROOT, "examples/server-memory.tools.json");
const dir = tempDir("contractpin-digest-");
function file(name: string, content: string | Uint8Array): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

describe("contractpin digest", () => {
  it("--json equals the independent Python implementation on a real server's dump", () => {
    const r = runCli(["digest", example, "--json"]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, "");
    assert.deepEqual(JSON.parse(r.stdout), pythonDigest(example));
  });

  it("--json is pretty-printed with sorted keys and a trailing newline", () => {
    const r = runCli(["digest", example, "--json"]);
    assert.ok(r.stdout.startsWith('{\n  "digest": "sha256:'));
    assert.ok(r.stdout.endsWith("}\n"));
    const toolNames = [...r.stdout.matchAll(/^ {4}"([^"]+)": \{$/gm)].map((m) => m[1]);
    assert.deepEqual(toolNames, [...toolNames].sort());
    assert.equal(toolNames.length, 9);
  });

  it("prints the server digest and one line per tool for people", () => {
    const expected = pythonDigest(example) as {
      digest: string;
      tools: Record<string, { digest: string }>;
    };
    const r = runCli(["digest", example]);
    assert.equal(r.code, 0);
    const lines = r.stdout.trimEnd().split("\n");
    assert.equal(lines[0], `server  ${expected.digest}  (9 tools)`);
    assert.equal(lines.length, 10);
    assert.ok(lines.includes(`  ${expected.tools["read_graph"]!.digest}  read_graph`));
    assert.ok(!r.stdout.includes("\u001b["), "no colour without a TTY");
  });

  it("reads standard input with - and gives the same digests for every dump form", () => {
    const tools = '[{"name":"b","description":"B"},{"name":"a"}]';
    const pages = `[{"tools":[{"name":"b","description":"B"}],"nextCursor":"c1"},{"jsonrpc":"2.0","id":3,"result":{"tools":[{"name":"a"}]}}]`;
    const forms = [
      `{"tools":${tools}}`,
      `{"jsonrpc":"2.0","id":1,"result":{"tools":${tools},"nextCursor":null}}`,
      pages,
    ];
    const outputs = forms.map((form) => runCli(["digest", "-", "--json"], { input: form }));
    for (const r of outputs) assert.equal(r.code, 0, r.stderr);
    assert.equal(outputs[1]!.stdout, outputs[0]!.stdout);
    assert.equal(outputs[2]!.stdout, outputs[0]!.stdout);
    assert.deepEqual(JSON.parse(outputs[0]!.stdout), pythonDigest(file("pages.json", pages)));
  });

  const rejected: [string, string | Uint8Array, RegExp][] = [
    [
      "a duplicate key",
      '{"tools":[{"name":"a","name":"b"}]}',
      /duplicate member name "name" at byte 22 \(\$\.tools\[0\]\.name\)/,
    ],
    ["duplicate tool names", '{"tools":[{"name":"a"},{"name":"a"}]}', /two tools are named "a"/],
    ["a tool without a name", '{"tools":[{"description":"x"}]}', /tool 0 has no name/],
    ["a lone surrogate", '{"tools":[{"name":"\\ud800"}]}', /lone surrogate/],
    ["1e400", '{"tools":[{"name":"a","inputSchema":{"maximum":1e400}}]}', /too large for a double/],
    [
      "invalid UTF-8",
      new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]),
      /invalid UTF-8 at byte 2/,
    ],
    ["not a dump", '{"name":"a"}', /not a tools\/list dump: \$ has no tools array/],
    ["a truncated paginated dump", '{"tools":[],"nextCursor":"x"}', /one page of a paginated list/],
    [
      "a JSON-RPC error",
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}',
      /JSON-RPC error response: Method not found/,
    ],
    ["trailing garbage", '{"tools":[]} x', /unexpected content after the JSON value/],
  ];
  for (const [what, content, message] of rejected) {
    it(`rejects ${what}: exit 2, one line on stderr`, () => {
      const r = runCli(["digest", file(`bad-${what.replace(/\W+/g, "-")}.json`, content)]);
      assert.equal(r.code, 2);
      assert.equal(r.stdout, "");
      assert.ok(oneLine(r.stderr), r.stderr);
      assert.match(r.stderr, /^contractpin: /);
      assert.match(r.stderr, message);
    });
  }

  it("a missing file: exit 2, names the file", () => {
    const r = runCli(["digest", join(dir, "nope.json")]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /cannot read .*nope\.json: no such file/);
    assert.ok(oneLine(r.stderr));
  });

  it("an unknown option: exit 2, points at --help", () => {
    const r = runCli(["digest", "--jsn"]);
    assert.equal(r.code, 2);
    assert.match(
      r.stderr,
      /unknown option '--jsn'; did you mean '--json'\? \(see 'contractpin digest --help'\)/,
    );
  });
});

describe("contractpin canonicalize", () => {
  it("prints canonical bytes with no trailing newline", () => {
    const r = runCli(["canonicalize"], { input: '{ "b": [1.0, 1e21, "\\u00e9\\/"], "a": -0 }' });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '{"a":0,"b":[1,1e+21,"é/"]}');
  });

  it("rejects a duplicate key with exit 2", () => {
    const r = runCli(["canonicalize", "-"], { input: '{"a":1,"a":2}' });
    assert.equal(r.code, 2);
    assert.ok(oneLine(r.stderr));
    assert.match(r.stderr, /duplicate member name "a"/);
  });
});

describe("contractpin", () => {
  it("--help lists the commands and the exit codes; exit 0", () => {
    const r = runCli(["--help"]);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /digest/);
    assert.match(r.stdout, /Exit codes: 0/);
  });

  it("--version prints the package version", () => {
    const r = runCli(["--version"]);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /^\d+\.\d+\.\d+\n$/);
  });

  it("a command's --help; exit 0", () => {
    const r = runCli(["digest", "--help"]);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /Usage: contractpin digest/);
  });

  it("an unknown command: exit 2", () => {
    const r = runCli(["frobnicate"]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /unknown command 'frobnicate'/);
  });

  it("no command: help on stdout, exit 2", () => {
    const r = runCli([]);
    assert.equal(r.code, 2);
    assert.match(r.stdout, /Usage: contractpin <command>/);
  });
});
