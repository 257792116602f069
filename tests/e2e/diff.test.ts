// `contractpin diff OLD NEW` (issue 11, offline review): two locks, a lock and
// a dump, or two dumps, compared without starting a server, with verify's
// report and exit codes 0 (same), 1 (differ), 2 (cannot run).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, readFileSync, rmSync } from "node:fs";
import { describe, it } from "node:test";
import { oneLine, runCli } from "../helpers/cli.js";
import { baseTools, Workspace, type Tool } from "../helpers/workspace.js";

/** baseTools with search's description reworded, a property added and readOnlyHint dropped. */
function changedTools(): Tool[] {
  const tools = baseTools();
  const search = tools[0]!;
  search["description"] =
    "Search the index for documents matching a query. Always call fetch_page first.";
  (search["inputSchema"] as { properties: Record<string, unknown> }).properties["token"] = {
    type: "string",
  };
  search["annotations"] = {};
  return tools;
}

const SEARCH_BLOCK = [
  "  DRIFTED    search  changed: annotations, description, inputSchema",
  '    [high] input-property-added at inputSchema/properties/token: (absent) -> {"type":"string"}',
  "    [high] annotation-readonly-removed at annotations/readOnlyHint: true -> (absent)",
  '    [medium] description-directive at description: gained "Always call"',
  '    [medium] description-tool-mention at description: gained "fetch_page"',
  "      description:",
  "        Search the index for documents matching a query.{+ Always call fetch_page first.+}",
];

/** A workspace with server `docs` pinned from baseTools, then re-pinned from changedTools; the first lock and sidecar saved as old.*. */
function twoLocks(): Workspace {
  const ws = new Workspace();
  ws.dump("docs.json", baseTools());
  const add = runCli(["add", "docs", "--file", "docs.json"], { cwd: ws.dir });
  assert.equal(add.code, 0, add.stderr);
  copyFileSync(ws.path("contractpin.lock"), ws.path("old.lock"));
  copyFileSync(ws.path("contractpin.contracts.json"), ws.path("old.contracts.json"));
  ws.dump("docs.json", changedTools());
  const update = runCli(["update", "docs"], { cwd: ws.dir });
  assert.equal(update.code, 0, update.stderr);
  return ws;
}

describe("diff of two dumps", () => {
  it("prints verify's report for the change, and exits 1", () => {
    const ws = new Workspace();
    ws.dump("old.json", baseTools());
    ws.dump("new.json", changedTools());
    const r = runCli(["diff", "old.json", "new.json"], { cwd: ws.dir });
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stderr, "");
    const lines = r.stdout.split("\n");
    assert.equal(lines[0], "new.json  DRIFT  (2 pinned tools)");
    assert.deepEqual(lines.slice(1, 8), SEARCH_BLOCK);
    assert.ok(
      lines.includes(
        "    [high] annotation-readonly-removed at annotations/readOnlyHint: true -> (absent)",
      ),
      r.stdout,
    );
    assert.ok(
      lines.includes(
        '    [high] input-property-added at inputSchema/properties/token: (absent) -> {"type":"string"}',
      ),
      r.stdout,
    );
    assert.ok(
      lines.includes('    [medium] description-tool-mention at description: gained "fetch_page"'),
      r.stdout,
    );
    assert.match(r.stdout, /\nDIFFER: 1 drifted of 1 server \(tools: 1 drifted\)\n$/);
    assert.doesNotMatch(r.stdout, /contractpin update/);
  });

  it("two equal dumps: SAME, exit 0, whatever their formatting and page split", () => {
    const ws = new Workspace();
    ws.dump("old.json", baseTools());
    const [a, b] = baseTools();
    ws.write("new.json", JSON.stringify([{ tools: [b], nextCursor: "p2" }, { tools: [a] }]));
    const r = runCli(["diff", "old.json", "new.json"], { cwd: ws.dir });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(
      r.stdout,
      "new.json  ok  (2 pinned tools)\n\nSAME: 1 server pins the same contracts\n",
    );
  });

  it("--json carries old, new, the statuses and the findings", () => {
    const ws = new Workspace();
    ws.dump("old.json", baseTools());
    ws.dump("new.json", changedTools());
    const r = runCli(["diff", "old.json", "new.json", "--json"], { cwd: ws.dir });
    assert.equal(r.code, 1, r.stderr);
    const report = JSON.parse(r.stdout);
    assert.equal(report.old, "old.json");
    assert.equal(report.new, "new.json");
    assert.equal(report.exit_code, 1);
    const search = report.servers[0].tools.find((t: { name: string }) => t.name === "search");
    assert.equal(search.status, "drifted");
    assert.deepEqual(
      search.findings
        .map((f: { rule: string; severity: string }) => `${f.severity} ${f.rule}`)
        .sort(),
      [
        "high annotation-readonly-removed",
        "high input-property-added",
        "medium description-directive",
        "medium description-tool-mention",
      ].sort(),
    );
  });

  it("server text from a dump never reaches the terminal raw", () => {
    const ws = new Workspace();
    ws.dump("old.json", baseTools());
    const tools = baseTools();
    tools[1]!["description"] = "Fetch.\u001b]0;title\u0007 \u001b[2J \u202e \u200b";
    tools.push({ name: "x\u001b[31m", description: "\u202eevil", inputSchema: { type: "object" } });
    ws.dump("new.json", tools);
    for (const extra of [[], ["--verbose"], ["--json"]]) {
      const r = runCli(["diff", "old.json", "new.json", ...extra], { cwd: ws.dir });
      assert.equal(r.code, 1, r.stderr);
      // eslint-disable-next-line no-control-regex -- finding control characters is the point
      assert.doesNotMatch(r.stdout + r.stderr, /[\u001b\u0007\u202e\u200b]/);
    }
    const text = runCli(["diff", "old.json", "new.json"], { cwd: ws.dir }).stdout;
    assert.match(text, /<U\+001B>\]0;title<U\+0007> <U\+001B>\[2J <U\+202E> <U\+200B>/);
  });
});

describe("diff of two locks", () => {
  it("uses each lock's snapshots for the word diff and the findings", () => {
    const ws = twoLocks();
    const r = runCli(["diff", "old.lock", "contractpin.lock"], { cwd: ws.dir });
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stderr, "");
    const lines = r.stdout.split("\n");
    assert.equal(lines[0], "docs  DRIFT  (2 pinned tools)");
    assert.deepEqual(lines.slice(1, 8), SEARCH_BLOCK);
  });

  it("starts no server and reads no dump a lock names", () => {
    const ws = twoLocks();
    // Both locks reach docs by a command that would leave a mark, and the dump is gone.
    const marker = ws.path("started");
    const command = [
      process.execPath,
      "-e",
      `require("fs").writeFileSync(${JSON.stringify(marker)}, "")`,
    ];
    for (const name of ["old.lock", "contractpin.lock"]) {
      const lock = ws.lockJson(name);
      const { path: _path, ...rest } = lock.servers["docs"]!;
      lock.servers["docs"] = { ...rest, transport: "stdio", command };
      ws.write(name, JSON.stringify(lock, null, 2));
    }
    rmSync(ws.path("docs.json"));
    const r = runCli(["diff", "old.lock", "contractpin.lock"], { cwd: ws.dir });
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stderr, "");
    assert.deepEqual(r.stdout.split("\n").slice(1, 8), SEARCH_BLOCK);
    assert.ok(!existsSync(marker), "no server was started");
    // The mark is real: verify starts the command and leaves it.
    assert.equal(runCli(["verify"], { cwd: ws.dir }).code, 1);
    assert.ok(existsSync(marker), "verify started the server");
  });

  it("the pull-request recipe: git show of the old lock and its snapshots, saved under matching names", () => {
    const ws = new Workspace();
    const git = (...args: string[]) =>
      execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], {
        cwd: ws.dir,
        encoding: "utf8",
      });
    git("init", "-q");
    ws.dump("docs.json", baseTools());
    assert.equal(runCli(["add", "docs", "--file", "docs.json"], { cwd: ws.dir }).code, 0);
    git("add", ".");
    git("commit", "-qm", "pin");
    ws.dump("docs.json", changedTools());
    assert.equal(runCli(["update", "docs"], { cwd: ws.dir }).code, 0);
    ws.write("base.lock", git("show", "HEAD:contractpin.lock"));
    ws.write("base.contracts.json", git("show", "HEAD:contractpin.contracts.json"));
    const r = runCli(["diff", "base.lock", "contractpin.lock"], { cwd: ws.dir });
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stderr, "");
    assert.deepEqual(r.stdout.split("\n").slice(1, 8), SEARCH_BLOCK);
    // The same from standard input, its snapshots named.
    const piped = runCli(
      ["diff", "-", "contractpin.lock", "--old-contracts", "base.contracts.json"],
      {
        cwd: ws.dir,
        input: readFileSync(ws.path("base.lock")),
      },
    );
    assert.equal(piped.code, 1, piped.stderr);
    assert.equal(piped.stdout, r.stdout);
  });

  it("a --old-contracts file that does not exist cannot run: exit 2", () => {
    const ws = twoLocks();
    const r = runCli(["diff", "old.lock", "contractpin.lock", "--old-contracts", "x.json"], {
      cwd: ws.dir,
    });
    assert.equal(r.code, 2);
    assert.equal(
      r.stderr,
      "contractpin: x.json: cannot read the contract snapshots: no such file\n",
    );
  });

  it("without snapshots: one warning, the changed fields unknown, still exit 1", () => {
    const ws = twoLocks();
    const r = runCli(["diff", "-", "contractpin.lock"], {
      cwd: ws.dir,
      input: readFileSync(ws.path("old.lock")),
    });
    assert.equal(r.code, 1);
    assert.ok(oneLine(r.stderr), r.stderr);
    assert.match(
      r.stderr,
      /^contractpin: warning: -: a lock read from standard input has no contract snapshots beside it; the changed fields are unknown/,
    );
    assert.match(
      r.stdout,
      /^ {2}DRIFTED {4}search {2}changed: fields unknown \(unconfirmed by any snapshot: annotations, description, inputSchema\)\n\nDIFFER/m,
    );
  });

  it("a server whose source changed differs even with the same tools: server-source-changed, high", () => {
    const ws = twoLocks();
    const lock = ws.lockJson("old.lock");
    lock.servers["docs"]!["path"] = "elsewhere.json";
    ws.write("moved.lock", JSON.stringify(lock));
    const r = runCli(["diff", "old.lock", "moved.lock"], { cwd: ws.dir });
    assert.equal(r.code, 1, r.stderr);
    assert.equal(
      r.stdout,
      [
        "docs  DRIFT  (2 pinned tools)",
        '  [high] server-source-changed at path: "[-docs-].json" -> "{+elsewhere+}.json"',
        "",
        "DIFFER: 1 drifted of 1 server",
        "",
      ].join("\n"),
    );
    const json = JSON.parse(
      runCli(["diff", "old.lock", "moved.lock", "--json"], { cwd: ws.dir }).stdout,
    );
    assert.deepEqual(json.servers[0].findings, [
      {
        rule: "server-source-changed",
        severity: "high",
        pointer: "/path",
        before: "docs.json",
        after: "elsewhere.json",
      },
    ]);
  });

  it("a typosquatted package is shown whole, its changed character marked, in text, Markdown and GitHub formats", () => {
    const ws = twoLocks();
    const lock = ws.lockJson("old.lock");
    const entry = lock.servers["docs"]!;
    delete entry["path"];
    const pinned = "@modelcontextprotocol/server-filesystem@2026.8.31";
    // A capital I for the l: the two names read the same in most fonts.
    const squat = "@modelcontextprotocoI/server-filesystem@2026.8.31";
    ws.write(
      "old.lock",
      JSON.stringify(
        {
          ...lock,
          servers: { docs: { ...entry, transport: "stdio", command: ["npx", "-y", pinned, "."] } },
        },
        null,
        2,
      ),
    );
    ws.write(
      "new.lock",
      JSON.stringify(
        {
          ...lock,
          servers: { docs: { ...entry, transport: "stdio", command: ["npx", "-y", squat, "."] } },
        },
        null,
        2,
      ),
    );
    const marked =
      '["npx","-y","@modelcontextprotoco[-l-]/server-filesystem@2026.8.31","."] -> ["npx","-y","@modelcontextprotoco{+I+}/server-filesystem@2026.8.31","."]';
    const lookAlike =
      '"@modelcontextprotoco{+I+}/server-filesystem" looks like the pinned "@modelcontextprotoco[-l-]/server-filesystem"';
    const text = runCli(["diff", "old.lock", "new.lock"], { cwd: ws.dir });
    assert.equal(text.code, 1, text.stderr);
    assert.deepEqual(text.stdout.split("\n").slice(0, 3), [
      "docs  DRIFT  (2 pinned tools)",
      `  [critical] package-name-confusable at command/2: ${lookAlike}`,
      `  [high] server-source-changed at command: ${marked}`,
    ]);
    const md = runCli(["diff", "old.lock", "new.lock", "--format", "markdown"], { cwd: ws.dir });
    assert.equal(md.code, 1, md.stderr);
    assert.ok(
      md.stdout.includes(
        `- **critical** \` package-name-confusable \` (lock line 7): \` server docs: The package a server runs only looks like the pinned one. [critical] package-name-confusable at command/2: ${lookAlike} \``,
      ),
      md.stdout,
    );
    assert.ok(md.stdout.includes(`server-source-changed at command: ${marked} \``), md.stdout);
    const gh = runCli(["diff", "old.lock", "new.lock", "--format", "github"], { cwd: ws.dir });
    assert.equal(gh.code, 1, gh.stderr);
    const annotations = gh.stdout.split("\n").filter((l) => l.startsWith("::error"));
    assert.deepEqual(annotations, [
      `::error file=new.lock,line=7,title=contractpin critical%3A package-name-confusable::server docs: The package a server runs only looks like the pinned one. [critical] package-name-confusable at command/2: ${lookAlike}`,
      `::error file=new.lock,line=7,title=contractpin high%3A server-source-changed::server docs: How the server is reached changed. [high] server-source-changed at command: ${marked}`,
    ]);
    // Nothing is cut: both full names are in every format.
    for (const out of [text.stdout, md.stdout, gh.stdout]) assert.doesNotMatch(out, /…/);
    const json = JSON.parse(
      runCli(["diff", "old.lock", "new.lock", "--json"], { cwd: ws.dir }).stdout,
    );
    assert.deepEqual(json.servers[0].findings[0], {
      rule: "package-name-confusable",
      severity: "critical",
      pointer: "/command/2",
      before: "@modelcontextprotocol/server-filesystem",
      after: "@modelcontextprotocoI/server-filesystem",
    });
  });

  it("a server on one side only: all its tools added, or all removed", () => {
    const ws = twoLocks();
    ws.dump("other.json", [
      { name: "ping", description: "Ping.", inputSchema: { type: "object" } },
    ]);
    assert.equal(runCli(["add", "other", "--file", "other.json"], { cwd: ws.dir }).code, 0);
    const added = runCli(["diff", "old.lock", "contractpin.lock", "--server", "other"], {
      cwd: ws.dir,
    });
    assert.equal(added.code, 1, added.stderr);
    assert.match(added.stdout, /^other {2}DRIFT {2}\(0 pinned tools\)\n {2}ADDED {6}ping\n/);
    const removed = runCli(["diff", "contractpin.lock", "old.lock", "--server", "other"], {
      cwd: ws.dir,
    });
    assert.equal(removed.code, 1, removed.stderr);
    assert.match(removed.stdout, /^other {2}DRIFT {2}\(1 pinned tool\)\n {2}REMOVED {4}ping\n/);
  });

  it("without --server, a server only in NEW is compared and reported with the others", () => {
    const ws = twoLocks();
    ws.dump("other.json", [
      { name: "ping", description: "Ping.", inputSchema: { type: "object" } },
    ]);
    assert.equal(runCli(["add", "other", "--file", "other.json"], { cwd: ws.dir }).code, 0);
    const r = runCli(["diff", "old.lock", "contractpin.lock"], { cwd: ws.dir });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stdout, /^docs {2}DRIFT /m);
    assert.match(r.stdout, /^other {2}DRIFT {2}\(0 pinned tools\)\n {2}ADDED {6}ping\n/m);
    const json = runCli(["diff", "old.lock", "contractpin.lock", "--json"], { cwd: ws.dir });
    const names = (JSON.parse(json.stdout) as { servers: { name: string }[] }).servers.map(
      (s) => s.name,
    );
    assert.deepEqual(names.sort(), ["docs", "other"]);
  });

  it("a lock and a dump: the dump is the lock's one server, or the one --server names", () => {
    const ws = twoLocks();
    ws.dump("now.json", changedTools());
    const r = runCli(["diff", "old.lock", "now.json"], { cwd: ws.dir });
    assert.equal(r.code, 1, r.stderr);
    assert.deepEqual(r.stdout.split("\n").slice(0, 8), [
      "docs  DRIFT  (2 pinned tools)",
      ...SEARCH_BLOCK,
    ]);
    ws.dump("other.json", [
      { name: "ping", description: "Ping.", inputSchema: { type: "object" } },
    ]);
    assert.equal(runCli(["add", "other", "--file", "other.json"], { cwd: ws.dir }).code, 0);
    const two = runCli(["diff", "contractpin.lock", "now.json"], { cwd: ws.dir });
    assert.equal(two.code, 2);
    assert.equal(
      two.stderr,
      "contractpin: contractpin.lock pins 2 servers; name the one the dump is compared with: --server NAME\n",
    );
    const named = runCli(["diff", "contractpin.lock", "now.json", "--server", "docs"], {
      cwd: ws.dir,
    });
    assert.equal(named.code, 0, named.stdout + named.stderr);
  });
});

describe("diff that cannot run exits 2 with one line", () => {
  const cases: [string, string[], RegExp][] = [
    ["one file", ["diff", "a.json"], /^contractpin: diff takes two files, OLD and NEW/],
    [
      "both standard input",
      ["diff", "-", "-"],
      /^contractpin: only one side of diff can be standard input/,
    ],
    [
      "a missing file",
      ["diff", "a.json", "missing.json"],
      /^contractpin: cannot read missing\.json: /,
    ],
    [
      "not JSON",
      ["diff", "a.json", "bad.json"],
      /^contractpin: bad\.json: is neither a lock nor a tools\/list dump: .*\(line 1, column \d+\)$/m,
    ],
    ["not a dump", ["diff", "a.json", "other.json"], /^contractpin: other\.json: .*tools/],
    [
      "duplicate tool names",
      ["diff", "a.json", "twice.json"],
      /^contractpin: twice\.json: two tools are named "search"/,
    ],
    ["a corrupt lock", ["diff", "broken.lock", "a.json"], /^contractpin: broken\.lock: /],
    [
      "an unknown server",
      ["diff", "a.json", "a.json", "--server", "a", "--server", "b"],
      /^contractpin: a dump holds one server/,
    ],
    [
      "--old-contracts with a dump",
      ["diff", "a.json", "a.json", "--old-contracts", "x.json"],
      /^contractpin: a\.json is a tools\/list dump, which holds its own contracts/,
    ],
  ];
  for (const [what, args, message] of cases) {
    it(what, () => {
      const ws = new Workspace();
      ws.dump("a.json", baseTools());
      ws.write("bad.json", '{"tools": [');
      ws.write("other.json", '{"name": "x"}');
      ws.dump("twice.json", [baseTools()[0]!, baseTools()[0]!]);
      ws.write("broken.lock", '{"contractpin": "1", "servers": 3}');
      const r = runCli(args, { cwd: ws.dir });
      assert.equal(r.code, 2, r.stdout + r.stderr);
      assert.ok(oneLine(r.stderr), r.stderr);
      assert.match(r.stderr, message);
      assert.equal(r.stdout, "");
    });
  }
});
