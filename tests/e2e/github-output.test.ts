// Nothing a server says becomes a GitHub Actions workflow command (issue
// 12), through the built CLI and a hostile stdio server whose description,
// tool name, schema strings and stderr hold `::set-output`, `::add-mask`,
// `::error`, `::stop-commands` and `##[...]` lines. Under GITHUB_ACTIONS=true
// each stream is read as the runner reads it: every line the runner would
// act on must be one that contractpin emitted itself (its stop-commands
// blocks and its annotations), in every format.
import assert from "node:assert/strict";
import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { CLI, runCli, type CliResult } from "../helpers/cli.js";
import { Workspace } from "../helpers/workspace.js";

const SERVER = fileURLToPath(
  new URL("../fixtures/servers/github-evil-server.mjs", import.meta.url),
);
const ACTIONS = {
  GITHUB_ACTIONS: "true",
  GITHUB_STEP_SUMMARY: undefined,
  GITHUB_WORKSPACE: undefined,
};

/** The server pinned clean, then switched to `mode`. */
function pinned(mode: "evil" | "fail"): Workspace {
  const ws = new Workspace();
  writeFileSync(ws.path("mode"), "clean");
  const add = runCli(["add", "evil", "--", process.execPath, SERVER, "mode"], {
    cwd: ws.dir,
    env: { GITHUB_ACTIONS: undefined },
  });
  assert.equal(add.code, 0, add.stderr);
  writeFileSync(ws.path("mode"), mode);
  return ws;
}

/** A workflow command the runner would act on: the v2 form `::name ...::` at a line's start, or v1 `##[name ...]` anywhere. */
function commandOf(line: string): string | undefined {
  const trimmed = line.trimStart();
  if (trimmed.startsWith("::")) {
    const end = trimmed.indexOf("::", 2);
    if (end > 2) return trimmed.slice(2, end).split(" ")[0];
  }
  const v1 = line.indexOf("##[");
  if (v1 >= 0 && line.indexOf("]", v1) > 0)
    return line.slice(v1 + 3, line.indexOf("]", v1)).split(" ")[0];
  return undefined;
}

/**
 * The lines of one stream that the runner acts on, read as it reads them:
 * after `::stop-commands::TOKEN` nothing is acted on until `::TOKEN::`.
 */
function actedOn(stream: string): string[] {
  const acted: string[] = [];
  let stopped: string | undefined;
  for (const line of stream.split(/\r\n|\r|\n/)) {
    const command = commandOf(line);
    if (command === undefined) continue;
    if (stopped !== undefined) {
      if (command.toLowerCase() === stopped.toLowerCase()) {
        acted.push(line);
        stopped = undefined;
      }
      continue;
    }
    acted.push(line);
    if (command === "stop-commands") stopped = line.trimStart().slice("::stop-commands::".length);
  }
  return acted;
}

/** Asserts every acted-on line is contractpin's own; returns the tokens of its blocks. */
function onlyOwnCommands(r: CliResult, what: string): string[] {
  const tokens: string[] = [];
  for (const [name, stream] of [
    ["stdout", r.stdout],
    ["stderr", r.stderr],
  ] as const) {
    for (const line of actedOn(stream)) {
      const stop = /^::stop-commands::([0-9a-f]{32})$/.exec(line);
      if (stop !== null) {
        tokens.push(stop[1]!);
        continue;
      }
      if (tokens.some((t) => line === `::${t}::`)) continue;
      // contractpin's annotations: one line each, pointing at the lock.
      if (
        /^::(error|warning) file=contractpin\.lock,line=\d+,title=contractpin [a-z]+%3A [a-z-]+::/.test(
          line,
        )
      )
        continue;
      if (/^::notice title=contractpin::contractpin: \d+ findings? /.test(line)) continue;
      assert.fail(`${what}: the runner would act on this ${name} line: ${JSON.stringify(line)}`);
    }
  }
  return tokens;
}

describe("under GITHUB_ACTIONS=true, a server's text is never a workflow command", () => {
  for (const args of [
    ["verify"],
    ["verify", "--verbose"],
    ["verify", "--format", "github"],
    ["verify", "--format", "markdown"],
    ["verify", "--format", "github", "--sarif", "out.sarif"],
  ]) {
    it(`evil descriptions and names: ${args.join(" ")}`, () => {
      const ws = pinned("evil");
      const r = runCli(args, { cwd: ws.dir, env: ACTIONS });
      assert.equal(r.code, 1, r.stderr);
      // The server's lines are shown (not dropped), inside the block.
      for (const text of [
        "::add-mask::hunter2",
        "::set-output name=x::pwned",
        "##[set-output name=y;]pwned",
      ])
        assert.ok(r.stdout.includes(text), `${text} missing from ${r.stdout}`);
      const tokens = onlyOwnCommands(r, args.join(" "));
      assert.ok(tokens.length > 0, "a stop-commands block was opened");
      if (args.includes("github")) {
        const own = actedOn(r.stdout).filter((l) => /^::(error|warning|notice) /.test(l));
        assert.ok(own.length >= 3, own.join("\n"));
        // The tool named "::error::name" is data inside an annotation's message.
        assert.ok(
          own.some((l) => l.includes("tool ::error::name: A tool was added")),
          own.join("\n"),
        );
      }
    });
  }

  it("the same run without GITHUB_ACTIONS would let the server's lines through (the test can fail)", () => {
    const ws = pinned("evil");
    const r = runCli(["verify"], { cwd: ws.dir, env: { GITHUB_ACTIONS: undefined } });
    assert.equal(r.code, 1);
    assert.ok(actedOn(r.stdout).some((l) => l.includes("::add-mask::hunter2")));
    assert.doesNotMatch(r.stdout, /^::stop-commands::[0-9a-f]{32}$/m);
  });

  it("json and sarif stay parseable, hold the server's text exactly, and nothing in them is a command", () => {
    const ws = pinned("evil");
    for (const format of ["json", "sarif"]) {
      const r = runCli(["verify", "--format", format], { cwd: ws.dir, env: ACTIONS });
      assert.equal(r.code, 1, r.stderr);
      const report = JSON.parse(r.stdout);
      assert.ok(JSON.stringify(report).includes('"::error::name"'), format);
      assert.ok(!r.stdout.includes("##["), format);
      assert.deepEqual(actedOn(r.stdout), [], format);
      onlyOwnCommands(r, format);
    }
  });

  it("digest --json stays parseable, and no tool name in it is a command", () => {
    const ws = new Workspace();
    const names = ["::add-mask::hunter2", "##[set-output name=y;]pwned", "a\u202eb"];
    ws.dump(
      "evil.json",
      names.map((name) => ({ name, inputSchema: { type: "object" } })),
    );
    const r = runCli(["digest", "--json", "evil.json"], { cwd: ws.dir, env: ACTIONS });
    assert.equal(r.code, 0, r.stderr);
    const plain = runCli(["digest", "--json", "evil.json"], {
      cwd: ws.dir,
      env: { GITHUB_ACTIONS: undefined },
    });
    assert.deepEqual(JSON.parse(r.stdout), JSON.parse(plain.stdout));
    assert.deepEqual(Object.keys(JSON.parse(r.stdout).tools).sort(), [...names].sort());
    assert.ok(!r.stdout.includes("##[") && !r.stdout.includes("\u202e"), r.stdout);
    assert.deepEqual(actedOn(r.stdout), []);
  });

  it("a failing server's stderr lines, in verify's report and in add's error", () => {
    const ws = pinned("fail");
    for (const args of [
      ["verify"],
      ["verify", "--format", "github"],
      ["verify", "--format", "markdown"],
    ]) {
      const r = runCli(args, { cwd: ws.dir, env: ACTIONS });
      assert.equal(r.code, 1, r.stderr);
      assert.ok(r.stdout.includes("::add-mask::hunter2"), r.stdout);
      onlyOwnCommands(r, args.join(" "));
    }
    const add = runCli(["add", "again", "--", process.execPath, SERVER, "mode"], {
      cwd: ws.dir,
      env: ACTIONS,
    });
    assert.equal(add.code, 1, add.stderr);
    assert.ok(add.stderr.includes("::add-mask::hunter2"), add.stderr);
    assert.deepEqual(onlyOwnCommands(add, "add").length, 1);
  });

  it("a fresh random token each run, never one the server wrote", () => {
    const ws = pinned("evil");
    const seen = new Set<string>();
    for (let i = 0; i < 3; i++) {
      const r = runCli(["verify"], { cwd: ws.dir, env: ACTIONS });
      for (const t of onlyOwnCommands(r, "verify")) seen.add(t);
    }
    assert.equal(seen.size, 3);
    assert.ok(![...seen].includes("guess"));
  });

  it("stdout redirected to a file (not read by the runner) is written without markers", () => {
    const ws = pinned("evil");
    const fd = openSync(ws.path("out.txt"), "w");
    try {
      const r = spawnSync(process.execPath, [CLI, "verify"], {
        cwd: ws.dir,
        env: { ...process.env, ...ACTIONS },
        stdio: ["ignore", fd, "pipe"],
        encoding: "utf8",
      });
      assert.equal(r.status, 1, r.stderr);
    } finally {
      closeSync(fd);
    }
    const out = readFileSync(ws.path("out.txt"), "utf8");
    assert.match(out, /^evil {2}DRIFT/);
    assert.doesNotMatch(out, /^::stop-commands::[0-9a-f]{32}$/m);
  });

  it("the job summary holds the server's text in fences longer than its backtick runs", () => {
    const ws = pinned("evil");
    const r = runCli(["verify"], {
      cwd: ws.dir,
      env: { ...ACTIONS, GITHUB_STEP_SUMMARY: ws.path("summary.md") },
    });
    assert.equal(r.code, 1, r.stderr);
    const md = ws.read("summary.md");
    const lines = md.split("\n");
    const open = lines.findIndex((l) => /^`{3,}text$/.test(l));
    const fence = lines[open]!.slice(0, -"text".length);
    assert.ok(fence.length >= 4, fence);
    const close = lines.findIndex((l, i) => i > open && /^`+$/.test(l) && l.length >= fence.length);
    const inside = lines.slice(open + 1, close).join("\n");
    assert.ok(inside.includes("# fence breaker") && inside.includes("```"), inside);
    assert.ok(inside.includes("::add-mask::hunter2"));
  });
});

describe("init's lines about client configs: a config's file name and a server's name", () => {
  /**
   * A project whose Continue config has a file name, and whose servers have
   * names, holding an escape sequence and a line feed followed by `::error`;
   * one server has a literal credential (a warning names it), one is
   * disabled (a skipped line names it).
   */
  function project(): Workspace {
    const ws = new Workspace();
    writeFileSync(ws.path("mode"), "clean");
    const evil = "s\u001b[31mRED\n::error::pwned by a server name";
    mkdirSync(ws.path(".continue/mcpServers"), { recursive: true });
    writeFileSync(
      ws.path(".continue/mcpServers/a\n::error::pwned by a file name\u001b[2J.yaml"),
      `name: x\nmcpServers:\n  - name: ${JSON.stringify(evil)}\n    command: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(SERVER)}, "mode"]\n    env: { API_KEY: "sk-abcdefabcdefabcdefabcdef12" }\n`,
    );
    writeFileSync(
      ws.path(".mcp.json"),
      JSON.stringify({
        mcpServers: { [`${evil} 2`]: { command: "x", disabled: true } },
      }),
    );
    return ws;
  }

  it("outside GitHub Actions, no line starts a workflow command and no escape sequence is printed", () => {
    const ws = project();
    const r = runCli(["init"], { cwd: ws.dir, env: { GITHUB_ACTIONS: undefined, API_KEY: "k" } });
    assert.equal(r.code, 0, r.stderr);
    for (const [name, stream] of [
      ["stdout", r.stdout],
      ["stderr", r.stderr],
    ] as const) {
      assert.deepEqual(actedOn(stream), [], `${name}: ${stream}`);
      assert.ok(!stream.includes("\u001b"), `${name}: ${JSON.stringify(stream)}`);
    }
    // Each line is there, with the names escaped rather than dropped.
    assert.match(r.stderr, /^contractpin: reading \S+\/a ::error::pwned by a file name\.yaml$/m);
    assert.match(
      r.stderr,
      /^contractpin: warning: \S+ ::error::pwned by a file name\.yaml: server sRED ::error::pwned by a server name: env API_KEY holds a literal credential/m,
    );
    assert.match(
      r.stderr,
      /^contractpin: skipped "s\\u001b\[31mRED\\n::error::pwned\\u0020by\\u0020a\\u0020server\\u0020name\\u00202" \(\S+\.mcp\.json\): disabled$/m,
    );
  });

  it("under GitHub Actions, every line the runner acts on is contractpin's own", () => {
    const ws = project();
    const r = runCli(["init"], { cwd: ws.dir, env: { ...ACTIONS, API_KEY: "k" } });
    assert.equal(r.code, 0, r.stderr);
    onlyOwnCommands(r, "init");
    assert.ok(!r.stderr.includes("\u001b"), JSON.stringify(r.stderr));
  });
});
