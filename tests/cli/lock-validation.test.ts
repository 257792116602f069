import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { oneLine, runCli } from "../helpers/cli.js";
import { baseTools, Workspace } from "../helpers/workspace.js";

/** A valid lock pinned by the CLI, as parsed JSON, to be broken one key at a time. */
function validLock(): { ws: Workspace; lock: Record<string, unknown> } {
  const ws = new Workspace();
  ws.dump("docs.json", baseTools());
  assert.equal(runCli(["add", "docs", "--file", "docs.json"], { cwd: ws.dir }).code, 0);
  return { ws, lock: ws.lockJson() };
}

type LockDoc = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const corrupt: [string, (lock: LockDoc) => unknown, RegExp, string?][] = [
  ["not an object", () => [], /the lock must be an object/],
  ["a missing version", (l) => void delete l["contractpin"], /contractpin is missing/],
  [
    "a version that is a number",
    (l) => void (l["contractpin"] = 1),
    /version 1 is not supported/,
    "LOCK_VERSION",
  ],
  ["a missing algorithm", (l) => void delete l["algorithm"], /algorithm is missing/],
  [
    "another algorithm",
    (l) => void (l["algorithm"] = "sha512"),
    /algorithm "sha512" is not supported/,
    "LOCK_ALGORITHM",
  ],
  [
    "a missing canonicalization",
    (l) => void delete l["canonicalization"],
    /canonicalization is missing/,
  ],
  [
    "a bad generated_at",
    (l) => void (l["generated_at"] = "yesterday"),
    /generated_at must be a UTC timestamp/,
  ],
  ["no servers", (l) => void delete l["servers"], /servers is missing/],
  ["servers as an array", (l) => void (l["servers"] = []), /servers must be an object/],
  [
    "an unknown top-level key",
    (l) => void (l["extra"] = 1),
    /extra is not a key this lock format has/,
  ],
  // The configs member (SPEC.md 12), only in format "3".
  [
    "configs in a version 1 lock",
    (l) => void (l["configs"] = { files: [".mcp.json"], unpinned: [] }),
    /configs is not a key this lock format has/,
  ],
  [
    "a version 3 lock without configs",
    (l) => void (l["contractpin"] = "3"),
    /contractpin is "3" but the lock records no configs, no server records its artifact and no tool its visibility/,
  ],
  [
    "configs with an absolute path",
    (l) => {
      l["contractpin"] = "3";
      l["configs"] = { files: ["/etc/.mcp.json"], unpinned: [] };
    },
    /configs\.files\[0\] must be a path relative to the lock's directory/,
  ],
  [
    "configs with a backslash path",
    (l) => {
      l["contractpin"] = "3";
      l["configs"] = { files: [".vscode\\mcp.json"], unpinned: [] };
    },
    /configs\.files\[0\] must be a path relative/,
  ],
  [
    "configs files out of order",
    (l) => {
      l["contractpin"] = "3";
      l["configs"] = { files: [".mcp.json", ".cursor/mcp.json"], unpinned: [] };
    },
    /configs\.files\[1\] is out of order or repeated/,
  ],
  [
    "a name both pinned and left unpinned",
    (l) => {
      l["contractpin"] = "3";
      l["configs"] = { files: [], unpinned: ["docs"] };
    },
    /configs\.unpinned\[0\] names a server the lock pins/,
  ],
  [
    "an empty configs member",
    (l) => {
      l["contractpin"] = "3";
      l["configs"] = { files: [], unpinned: [] };
    },
    /configs is empty/,
  ],
  [
    "an unknown key in configs",
    (l) => {
      l["contractpin"] = "3";
      l["configs"] = { files: [".mcp.json"], unpinned: [], skip: [] };
    },
    /configs\.skip is not a key this lock format has/,
  ],
  [
    "an unknown transport",
    (l) => void (l.servers.docs.transport = "ftp"),
    /servers\.docs\.transport must be one of/,
  ],
  [
    "a file server without path",
    (l) => void delete l.servers.docs.path,
    /servers\.docs\.path is required for transport "file"/,
  ],
  [
    "a stdio server without command",
    (l) => void (l.servers.docs = { ...l.servers.docs, transport: "stdio", path: undefined }),
    /servers\.docs\.command is required for transport "stdio"/,
  ],
  [
    "an http server without url",
    (l) => void (l.servers.docs = { ...l.servers.docs, transport: "http", path: undefined }),
    /servers\.docs\.url is required for transport "http"/,
  ],
  [
    "a key of another transport",
    (l) => void (l.servers.docs.url = "http://x"),
    /servers\.docs\.url is not a key/,
  ],
  [
    "an uppercase digest",
    (l) => void (l.servers.docs.digest = l.servers.docs.digest.toUpperCase()),
    /servers\.docs\.digest must be "sha256:"/,
  ],
  [
    "a server digest with uppercase hex after a lowercase sha256:",
    (l) => void (l.servers.docs.digest = "sha256:" + l.servers.docs.digest.slice(7).toUpperCase()),
    /servers\.docs\.digest must be "sha256:"/,
  ],
  [
    "a tool digest with uppercase hex",
    (l) =>
      void (l.servers.docs.tools.search.digest =
        "sha256:" + l.servers.docs.tools.search.digest.slice(7).toUpperCase()),
    /servers\.docs\.tools\.search\.digest must be "sha256:"/,
  ],
  [
    "a short tool digest",
    (l) => void (l.servers.docs.tools.search.digest = "sha256:abc"),
    /servers\.docs\.tools\.search\.digest must be/,
  ],
  [
    "a field digest of an unknown field",
    (l) => void (l.servers.docs.tools.search.fields.title = l.servers.docs.digest),
    /fields\.title is not a contract field/,
  ],
  [
    "a wrong tool_count",
    (l) => void (l.servers.docs.tool_count = 3),
    /tool_count is 3 but the server has 2 tools/,
  ],
  [
    "a tool_count lower than the number of tools",
    (l) => void (l.servers.docs.tool_count = 1),
    /tool_count is 1 but the server has 2 tools/,
  ],
  [
    "a server digest with characters after its 64 hex digits",
    (l) => void (l.servers.docs.digest += "0"),
    /servers\.docs\.digest must be "sha256:" followed by 64 lowercase hex digits/,
  ],
  [
    "a tool digest with a line break after its 64 hex digits",
    (l) => void (l.servers.docs.tools.search.digest += "\n"),
    /servers\.docs\.tools\.search\.digest must be "sha256:" followed by 64/,
  ],
  [
    "a fractional tool_count",
    (l) => void (l.servers.docs.tool_count = 2.5),
    /tool_count must be an integer/,
  ],
  [
    "a server digest edited by hand",
    (l) => void (l.servers.docs.digest = `sha256:${"0".repeat(64)}`),
    /servers\.docs\.digest does not match the digest of its tools' digests/,
  ],
  [
    "a tool digest edited by hand (the server digest no longer follows)",
    (l) => void (l.servers.docs.tools.search.digest = `sha256:${"1".repeat(64)}`),
    /servers\.docs\.digest does not match/,
  ],
  [
    "a tool removed by hand",
    (l) => void delete l.servers.docs.tools.search,
    /tool_count is 2 but the server has 1 tools/,
  ],
  [
    "a command that is not argv",
    (l) =>
      void (l.servers.docs = {
        ...l.servers.docs,
        transport: "stdio",
        path: undefined,
        command: "npx x",
      }),
    /command must be a non-empty array/,
  ],
  [
    "env with a non-string",
    (l) =>
      void (l.servers.docs = {
        ...l.servers.docs,
        transport: "stdio",
        path: undefined,
        command: ["x"],
        env: { A: 1 },
      }),
    /servers\.docs\.env\.A must be a string/,
  ],
];

describe("a corrupt lock is exit 2 with one line naming the offending key", () => {
  for (const [what, mutate, message, code] of corrupt) {
    it(what, () => {
      const { ws, lock } = validLock();
      const result = mutate(lock);
      ws.write("contractpin.lock", JSON.stringify(result === undefined ? lock : result, null, 2));
      const r = runCli(["verify"], { cwd: ws.dir });
      assert.equal(r.code, 2, r.stdout + r.stderr);
      assert.equal(r.stdout, "");
      assert.ok(oneLine(r.stderr), r.stderr);
      assert.match(r.stderr, /^contractpin: contractpin\.lock: /);
      assert.match(r.stderr, message);
      if (code === undefined) assert.match(r.stderr, /lock is corrupt: /);
    });
  }

  const raw: [string, string, RegExp][] = [
    [
      "a duplicate key",
      '{"contractpin":"1","contractpin":"1"}',
      /lock is corrupt: duplicate member name "contractpin"/,
    ],
    ["truncated JSON", '{"contractpin":"1","algori', /lock is corrupt: unterminated string/],
    ["an empty file", "", /lock is corrupt: unexpected end of input/],
    [
      "invalid UTF-8",
      "\u00ff",
      /^contractpin: contractpin\.lock: lock is corrupt: invalid UTF-8 at byte 1 \(line 1, column 2\)\n$/,
    ],
  ];
  for (const [what, text, message] of raw) {
    it(what, () => {
      const ws = new Workspace();
      ws.write(
        "contractpin.lock",
        what === "invalid UTF-8" ? Buffer.from([0x7b, 0xff, 0x7d]) : text,
      );
      const r = runCli(["verify"], { cwd: ws.dir });
      assert.equal(r.code, 2);
      assert.ok(oneLine(r.stderr), r.stderr);
      assert.match(r.stderr, message);
    });
  }
});

describe("lock versions the verifier does not implement: exit 2", () => {
  it("an unknown lock version", () => {
    const { ws, lock } = validLock();
    ws.write("contractpin.lock", JSON.stringify({ ...lock, contractpin: "4" }));
    const r = runCli(["verify"], { cwd: ws.dir });
    assert.equal(r.code, 2);
    assert.match(
      r.stderr,
      /lock format version "4" is not supported \(this contractpin reads versions "1", "2" and "3"\)/,
    );
  });

  it("an unknown canonicalization", () => {
    const { ws, lock } = validLock();
    ws.write(
      "contractpin.lock",
      JSON.stringify({ ...lock, canonicalization: "contractpin-canonical-json/2" }),
    );
    const r = runCli(["verify"], { cwd: ws.dir });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /canonicalization "contractpin-canonical-json\/2" is not supported/);
  });

  it("a missing lock", () => {
    const r = runCli(["verify", "--lock", "nowhere/contractpin.lock"], {
      cwd: new Workspace().dir,
    });
    assert.equal(r.code, 2);
    assert.ok(oneLine(r.stderr));
    assert.match(r.stderr, /nowhere\/contractpin\.lock: cannot read the lock: no such file/);
  });
});

describe("a reformatted lock is still the same lock", () => {
  it("verifies after being re-indented and reordered", () => {
    const { ws, lock } = validLock();
    const reordered = Object.fromEntries(Object.entries(lock).reverse());
    ws.write("contractpin.lock", JSON.stringify(reordered));
    assert.equal(runCli(["verify"], { cwd: ws.dir }).code, 0);
  });
});
