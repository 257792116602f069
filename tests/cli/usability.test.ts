// Ordinary mistakes get one line that says what to do, and output suits where
// it goes: colour settings, and live progress in a terminal too short for it.
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { oneLine, runCli } from "../helpers/cli.js";
import { SERVERS } from "../helpers/servers.js";
import { onTerminal } from "../helpers/terminal.js";
import { baseTools, Workspace } from "../helpers/workspace.js";

const ws = new Workspace();
after(() => rmSync(ws.dir, { recursive: true, force: true }));

function usage(args: string[], expected: RegExp): void {
  const r = runCli(args, { cwd: ws.dir });
  assert.equal(r.code, 2, r.stderr);
  assert.ok(oneLine(r.stderr), r.stderr);
  assert.match(r.stderr, expected);
}

describe("mistakes", () => {
  it("an unknown command suggests the nearest one", () => {
    usage(["verfy"], /^contractpin: unknown command 'verfy'; did you mean 'verify'\?/);
    usage(["remvoe"], /did you mean 'remove'\?/);
    // Nothing near: no guess.
    usage(["frobnicate"], /^contractpin: unknown command 'frobnicate' \(run 'contractpin --help'/);
  });

  it("an unknown option suggests the nearest one of that command", () => {
    usage(["verify", "--servr", "x"], /unknown option '--servr'; did you mean '--server'\?/);
    usage(["verify", "--jsno"], /unknown option '--jsno'; did you mean '--json'\?/);
    usage(["add", "x", "--hedaer=a"], /unknown option '--hedaer'; did you mean '--header'\?/);
    usage(
      ["verify", "--zzzzzz"],
      /^contractpin: unknown option '--zzzzzz' \(see 'contractpin verify --help'\)\n$/,
    );
  });

  it("add with a command but no '--' says where '--' goes, with or without the command's options", () => {
    const hint =
      /^contractpin: add takes one NAME; to pin a stdio server, put '--' before its command/;
    usage(["add", "memory", "npx", "@modelcontextprotocol/server-memory"], hint);
    // The README's own shape without '--': '-y' is the command's option, not add's.
    usage(["add", "memory", "npx", "-y", "@modelcontextprotocol/server-memory"], hint);
    usage(["add", "memory", "npx", "-y", "--token=sk-live-SECRET1234"], hint);
    assert.ok(
      !runCli(["add", "m", "npx", "--token=sk-live-SECRET1234"], { cwd: ws.dir }).stderr.includes(
        "SECRET",
      ),
    );
    // An unknown option of add's own, with no command after NAME, is still named.
    usage(
      ["add", "memory", "--tiemout", "5"],
      /unknown option '--tiemout'; did you mean '--timeout'\?/,
    );
  });

  it("a negative --timeout or --concurrency says it must be positive", () => {
    usage(["verify", "--timeout", "-1"], /--timeout takes a positive number, not '-1'/);
    usage(["verify", "--concurrency", "-3"], /--concurrency takes a positive number, not '-3'/);
    usage(["verify", "--timeout=-1"], /--timeout takes a positive number of seconds, not '-1'/);
    usage(["verify", "--timeout"], /^contractpin: --timeout needs a value \(see/);
  });

  it("a value given to a switch says that it takes none", () => {
    usage(
      ["verify", "--allow-new=false"],
      /^contractpin: --allow-new takes no value; leave it out to keep the default \(see 'contractpin verify --help'\)\n$/,
    );
    usage(["init", "--force=yes"], /^contractpin: --force takes no value; /);
  });
});

describe("colour", () => {
  ws.dump("small.json", baseTools());
  const clean = { NO_COLOR: undefined, FORCE_COLOR: undefined, TERM: "xterm-256color" };
  const coloured = (s: string) => s.includes("\u001b[");

  it("FORCE_COLOR gives colour on a pipe; NO_COLOR still wins", () => {
    const plain = runCli(["digest", "small.json"], { cwd: ws.dir });
    assert.equal(plain.code, 0, plain.stderr);
    assert.ok(!coloured(plain.stdout));
    const forced = runCli(["digest", "small.json"], { cwd: ws.dir, env: { FORCE_COLOR: "1" } });
    assert.ok(coloured(forced.stdout), forced.stdout);
    const both = runCli(["digest", "small.json"], {
      cwd: ws.dir,
      env: { FORCE_COLOR: "1", NO_COLOR: "1" },
    });
    assert.ok(!coloured(both.stdout));
  });

  it("on a terminal: colour, none with TERM=dumb, FORCE_COLOR=0 or NO_COLOR", () => {
    assert.ok(coloured(onTerminal(["digest", "small.json"], clean, ws.dir).data));
    for (const env of [{ TERM: "dumb" }, { FORCE_COLOR: "0" }, { NO_COLOR: "1" }]) {
      const r = onTerminal(["digest", "small.json"], { ...clean, ...env }, ws.dir);
      assert.equal(r.code, 0);
      assert.match(r.data, /fetch_page/);
      assert.ok(!coloured(r.data), JSON.stringify(env));
    }
  });
});

describe("live progress on a terminal", () => {
  const names = Array.from({ length: 8 }, (_, i) => `s${i}`);

  it("redraws in place when the list fits, and prints plain lines when it does not", () => {
    const lock = ws.path("progress.lock");
    for (const name of names) {
      const r = runCli(
        ["add", name, "--lock", lock, "--", process.execPath, SERVERS.fakeStdio, "ok"],
        { cwd: ws.dir },
      );
      assert.equal(r.code, 0, r.stderr);
    }
    const tall = onTerminal(["verify", "--lock", lock], { TERM: "xterm" }, ws.dir, 40);
    assert.equal(tall.code, 0, tall.data);
    assert.ok(tall.data.includes(`\u001b[${names.length}A`), "a tall terminal redraws in place");

    const short = onTerminal(["verify", "--lock", lock], { TERM: "xterm" }, ws.dir, 5);
    assert.equal(short.code, 0, short.data);
    // eslint-disable-next-line no-control-regex -- looking for cursor movement is the point
    assert.ok(!/\u001b\[\d+A/.test(short.data), "no cursor movement on a short terminal");
    for (const name of names) {
      const lines = short.data.split(/\r?\n/).filter((l) => l.includes(`] ${name}: ok`));
      assert.equal(lines.length, 1, `one progress line for ${name}`);
    }
  });
});

describe("finding the lock", () => {
  it("without --lock: the nearest lock up to the repository root, named when not here", () => {
    const repo = new Workspace();
    mkdirSync(join(repo.dir, ".git"));
    mkdirSync(join(repo.dir, "sub", "deep"), { recursive: true });
    repo.dump("tools.json", baseTools());
    assert.equal(runCli(["add", "docs", "--file", "tools.json"], { cwd: repo.dir }).code, 0);
    const deep = join(repo.dir, "sub", "deep");
    const r = runCli(["verify"], { cwd: deep });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, `contractpin: using the lock ${join("..", "..", "contractpin.lock")}\n`);
    assert.match(r.stdout, /^docs {2}ok/m);
    // `verify NAME` is `verify --server NAME`.
    const named = runCli(["verify", "docs", "nope"], { cwd: deep });
    assert.equal(named.code, 2);
    assert.match(
      named.stderr,
      /no server named 'nope' in \.\.\/\.\.\/contractpin\.lock; it pins: docs/,
    );
    // In the directory of the lock, nothing is said.
    assert.equal(runCli(["verify", "docs"], { cwd: repo.dir }).stderr, "");
  });

  it("never above the repository root, and only the current directory outside a repository", () => {
    const outer = new Workspace();
    outer.dump("tools.json", baseTools());
    assert.equal(runCli(["add", "docs", "--file", "tools.json"], { cwd: outer.dir }).code, 0);
    // A repository inside the folder that holds a lock: that lock is not its.
    const repo = join(outer.dir, "repo");
    mkdirSync(join(repo, ".git"), { recursive: true });
    const inRepo = runCli(["verify"], { cwd: repo });
    assert.equal(inRepo.code, 2);
    assert.match(
      inRepo.stderr,
      /^contractpin: contractpin\.lock: cannot read the lock: no such file/,
    );
    // Not a repository: the lock one level up is not used either.
    const plain = join(outer.dir, "plain");
    mkdirSync(plain);
    const notRepo = runCli(["verify"], { cwd: plain });
    assert.equal(notRepo.code, 2);
    assert.match(notRepo.stderr, /^contractpin: contractpin\.lock: cannot read the lock/);
  });
});

describe("add", () => {
  it("run from another directory than the lock's, records that directory as cwd", () => {
    const ws = new Workspace();
    mkdirSync(ws.path("server"));
    copyFileSync(SERVERS.fakeStdio, ws.path("server/fake.mjs"));
    copyFileSync(join(SERVERS.fakeStdio, "..", "fake-mcp.mjs"), ws.path("server/fake-mcp.mjs"));
    copyFileSync(join(SERVERS.fakeStdio, "..", "tools.json"), ws.path("server/tools.json"));
    mkdirSync(ws.path("sub"));
    const lock = join("..", "sub", "contractpin.lock");
    const r = runCli(["add", "s", "--lock", lock, "--", process.execPath, "fake.mjs", "ok"], {
      cwd: ws.path("server"),
    });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(ws.lockJson("sub/contractpin.lock").servers["s"]!["cwd"], "../server");
    // Verified from anywhere, the relative command still finds its script.
    const v = runCli(["verify", "--lock", "sub/contractpin.lock"], { cwd: ws.dir });
    assert.equal(v.code, 0, v.stderr);
  });

  it("warns about a package runner without a pinned version, as init does", () => {
    const ws = new Workspace();
    const bin = ws.path("bin");
    mkdirSync(bin);
    // An `npx` that runs the fake server, whatever package it is asked for.
    writeFileSync(
      join(bin, "npx"),
      `#!/bin/sh\nexec "${process.execPath}" "${SERVERS.fakeStdio}" ok\n`,
      { mode: 0o755 },
    );
    // The review asks the runner's registry for the version that would run now:
    // here one that cannot be asked (port 1, which fetch refuses), never the public one;
    // set in npm's highest layer too, since `npm test` sets npm_config_* of its own.
    const home = ws.path("home");
    mkdirSync(home);
    writeFileSync(join(home, ".npmrc"), "registry=http://127.0.0.1:1/\n");
    const env = {
      PATH: `${bin}:${process.env["PATH"]}`,
      HOME: home,
      npm_config_registry: "http://127.0.0.1:1/",
    };
    const r = runCli(["add", "m", "--", "npx", "-y", "@acme/mcp-search"], { cwd: ws.dir, env });
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      /\[medium\] package-runner-unpinned at command\/2: @acme\/mcp-search runs through npx without an exact version: the version that would run now is unknown, the registry could not be asked \(registry http:\/\/127\.0\.0\.1:1\/: bad port\); pin it: contractpin upgrade m --write$/m,
    );
    assert.match(
      r.stderr,
      /^contractpin: warning: server m: @acme\/mcp-search, run through npx, is not pinned/m,
    );
    const pinned = runCli(["add", "p", "--", "npx", "-y", "@acme/mcp-search@1.2.3"], {
      cwd: ws.dir,
      env,
    });
    assert.equal(pinned.code, 0, pinned.stderr);
    assert.doesNotMatch(pinned.stderr, /is not pinned/);
  });
});

describe("a stdio server that fails naming a variable contractpin did not pass", () => {
  const server = [
    "--",
    process.execPath,
    "-e",
    "console.error('Error: BRAVE_API_KEY environment variable is required'); process.exit(1)",
  ];

  it("gets the exact --env to add", () => {
    const ws = new Workspace();
    const r = runCli(["add", "brave", ...server], {
      cwd: ws.dir,
      env: { BRAVE_API_KEY: "set-in-the-shell" },
    });
    assert.equal(r.code, 1, r.stderr);
    assert.match(
      r.stderr,
      /^contractpin: server brave: the server exited with code 1 before answering; it names BRAVE_API_KEY, which contractpin has but does not pass to servers: add --env 'BRAVE_API_KEY=\$\{BRAVE_API_KEY\}' to pass it\n/,
    );
    assert.ok(!r.stderr.includes("set-in-the-shell"));
  });

  it("gets no hint when the variable is passed, or is not set at all", () => {
    const ws = new Workspace();
    const unset = runCli(["add", "brave", ...server], {
      cwd: ws.dir,
      env: { BRAVE_API_KEY: undefined },
    });
    assert.equal(unset.code, 1, unset.stderr);
    assert.doesNotMatch(unset.stderr, /does not pass/);
    const passed = runCli(["add", "brave", "--env", "BRAVE_API_KEY=${BRAVE_API_KEY}", ...server], {
      cwd: ws.dir,
      env: { BRAVE_API_KEY: "set-in-the-shell" },
    });
    assert.equal(passed.code, 1, passed.stderr);
    assert.match(passed.stderr, /exited with code 1 before answering/);
    assert.doesNotMatch(passed.stderr, /does not pass/);
  });
});
