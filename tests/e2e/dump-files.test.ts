// Dump files (the `file` transport, and the inputs of `digest` and
// `canonicalize`) are regular files of at most 64 MiB: a FIFO used to hang
// `verify` past --timeout and SIGTERM, /dev/zero exhausted memory, and a dump
// of any size was read whole. Standard input is bounded the same way. An
// error about a file that is not JSON shows at most an escaped code point of
// it, never raw bytes a terminal would act on.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { after, before, describe, it } from "node:test";
import { CLI, oneLine, ROOT, type CliResult } from "../helpers/cli.js";
import { baseTools, Workspace } from "../helpers/workspace.js";

const LIMIT = 64 * 1024 * 1024;

/**
 * Runs the built CLI, killing it (SIGKILL: the old code did not end on
 * SIGTERM) if it has not finished within `seconds`, and reports how long it took.
 */
function run(
  args: string[],
  options: { cwd: string; input?: string | Uint8Array; seconds?: number },
): CliResult & { ms: number; killed: boolean } {
  const started = Date.now();
  const r = spawnSync(process.execPath, [CLI, ...args], {
    cwd: options.cwd,
    input: options.input ?? "",
    env: { ...process.env, NO_COLOR: undefined, FORCE_COLOR: undefined },
    encoding: "utf8",
    timeout: (options.seconds ?? 30) * 1000,
    killSignal: "SIGKILL",
    maxBuffer: 16 * 1024 * 1024,
  });
  return {
    code: r.status,
    stdout: r.stdout,
    stderr: r.stderr,
    ms: Date.now() - started,
    killed: r.signal === "SIGKILL",
  };
}

/** A workspace with server "docs" pinned from docs.json; the test then replaces docs.json. */
function pinned(): Workspace {
  const ws = new Workspace();
  ws.dump("docs.json", baseTools());
  const r = run(["add", "docs", "--file", "docs.json"], { cwd: ws.dir });
  assert.equal(r.code, 0, r.stderr);
  return ws;
}

const mkfifo = (path: string) => {
  const r = spawnSync("mkfifo", [path]);
  assert.equal(r.status, 0, String(r.stderr));
};

/** Characters a terminal acts on or hides: controls (but the final newline), format characters, separators. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const RAW_UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\p{Cf}\u2028\u2029]/u;

describe("the file transport reads regular files only, within the limit", () => {
  const workspaces: Workspace[] = [];
  after(() => {
    for (const ws of workspaces) rmSync(ws.dir, { recursive: true, force: true });
  });
  const setup = (replace: (ws: Workspace) => void): Workspace => {
    const ws = pinned();
    workspaces.push(ws);
    unlinkSync(ws.path("docs.json"));
    replace(ws);
    return ws;
  };

  const cases: [string, (ws: Workspace) => void, RegExp][] = [
    [
      "a FIFO that no one writes to",
      (ws) => mkfifo(ws.path("docs.json")),
      /cannot read \S+docs\.json: it is a FIFO \(named pipe\), not a regular file$/m,
    ],
    [
      "/dev/zero",
      (ws) => symlinkSync("/dev/zero", ws.path("docs.json")),
      /cannot read \S+docs\.json: it is a character device, not a regular file$/m,
    ],
    [
      "a directory",
      (ws) => mkdirSync(ws.path("docs.json")),
      /cannot read \S+docs\.json: it is a directory, not a regular file$/m,
    ],
    [
      "a sparse file of 65 MiB",
      (ws) => {
        writeFileSync(ws.path("docs.json"), "");
        truncateSync(ws.path("docs.json"), 65 * 1024 * 1024);
      },
      /cannot read \S+docs\.json: it is larger than the limit of 64 MiB \(--max-message-mib raises it\)$/m,
    ],
    [
      "a valid dump padded past 64 MiB",
      (ws) => {
        const text = JSON.stringify({ tools: baseTools() });
        writeFileSync(ws.path("docs.json"), text + " ".repeat(LIMIT + 1 - text.length));
      },
      /cannot read \S+docs\.json: it is larger than the limit of 64 MiB/m,
    ],
  ];

  for (const [what, replace, message] of cases) {
    it(`verify of ${what}: UNREACHABLE, exit 1, promptly`, () => {
      const ws = setup(replace);
      const r = run(["verify", "--timeout", "5"], { cwd: ws.dir, seconds: 20 });
      assert.equal(r.killed, false, `verify was still running after 20 s`);
      assert.equal(r.code, 1, r.stderr + r.stdout);
      assert.match(r.stdout, /^docs {2}UNREACHABLE {2}/m);
      assert.match(r.stdout, message);
      assert.ok(r.ms < 10_000, `took ${r.ms} ms`);
      assert.equal(r.stderr, "");
    });
  }

  it("add of a FIFO: the server is unreadable, exit 1, one line", () => {
    const ws = new Workspace();
    workspaces.push(ws);
    mkfifo(ws.path("pipe.json"));
    const r = run(["add", "p", "--file", "pipe.json"], { cwd: ws.dir, seconds: 20 });
    assert.equal(r.killed, false);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /^contractpin: server p: cannot read \S+pipe\.json: it is a FIFO/);
    assert.ok(oneLine(r.stderr), r.stderr);
    assert.equal(existsSync(ws.path("contractpin.lock")), false);
  });

  it("a dump read and parsed after the deadline is refused: UNREACHABLE, exit 1", () => {
    const ws = pinned();
    workspaces.push(ws);
    // Five megabytes of JSON take well over a millisecond to read and parse.
    const text = JSON.stringify({ tools: baseTools() });
    writeFileSync(ws.path("docs.json"), text + " ".repeat(5 * 1024 * 1024));
    const r = run(["verify", "--timeout", "0.001"], { cwd: ws.dir });
    assert.equal(r.code, 1, r.stderr + r.stdout);
    assert.match(r.stdout, /^docs {2}UNREACHABLE {2}timed out after 0\.001 s$/m);
    // The same dump within the default timeout matches.
    assert.equal(run(["verify"], { cwd: ws.dir }).code, 0);
  });

  it("a dump of exactly 64 MiB is still read", () => {
    const ws = pinned();
    workspaces.push(ws);
    const text = JSON.stringify({ tools: baseTools() });
    writeFileSync(ws.path("docs.json"), text + " ".repeat(LIMIT - text.length));
    const r = run(["verify"], { cwd: ws.dir });
    assert.equal(r.code, 0, r.stderr + r.stdout);
    assert.match(r.stdout, /OK: 1 server matches the lock/);
  });
});

describe("digest and canonicalize read regular files and standard input, within the limit", () => {
  let ws: Workspace;
  before(() => {
    ws = new Workspace();
    mkfifo(ws.path("fifo"));
    mkdirSync(ws.path("dir"));
    writeFileSync(ws.path("sparse"), "");
    truncateSync(ws.path("sparse"), 65 * 1024 * 1024);
  });
  after(() => rmSync(ws.dir, { recursive: true, force: true }));

  const inputs: [string, () => string, RegExp][] = [
    ["a FIFO", () => ws.path("fifo"), /it is a FIFO \(named pipe\), not a regular file/],
    ["/dev/zero", () => "/dev/zero", /it is a character device, not a regular file/],
    ["a directory", () => ws.path("dir"), /it is a directory, not a regular file/],
    ["a sparse file of 65 MiB", () => ws.path("sparse"), /it is larger than the limit of 64 MiB$/m],
  ];
  for (const command of ["digest", "canonicalize"]) {
    for (const [what, path, message] of inputs) {
      it(`${command} of ${what}: exit 2, one line, promptly`, () => {
        const r = run([command, path()], { cwd: ws.dir, seconds: 20 });
        assert.equal(r.killed, false, `${command} was still running after 20 s`);
        assert.equal(r.code, 2, r.stderr);
        assert.equal(r.stdout, "");
        assert.match(r.stderr, /^contractpin: cannot read /);
        assert.match(r.stderr, message);
        assert.ok(oneLine(r.stderr), r.stderr);
      });
    }

    it(`${command} -: standard input past 64 MiB is refused, exit 2`, () => {
      const text = JSON.stringify({ tools: baseTools() });
      const r = run([command, "-"], {
        cwd: ws.dir,
        input: text + " ".repeat(LIMIT + 1 - text.length),
      });
      assert.equal(r.code, 2, r.stderr);
      assert.equal(r.stdout, "");
      assert.equal(
        r.stderr,
        "contractpin: cannot read standard input: it is larger than the limit of 64 MiB\n",
      );
    });
  }

  it("digest -: standard input of exactly 64 MiB is read", () => {
    const text = JSON.stringify({ tools: baseTools() });
    const r = run(["digest", "-", "--json"], {
      cwd: ws.dir,
      input: text + " ".repeat(LIMIT - text.length),
    });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).tool_count, 2);
  });
});

describe("an error about a file that is not JSON shows none of its bytes raw", () => {
  let ws: Workspace;
  before(() => {
    ws = new Workspace();
  });
  after(() => rmSync(ws.dir, { recursive: true, force: true }));

  // The third regex, when given, is verify's line: server text there goes
  // through visibleText, so a hidden character reads <U+XXXX> (issue 11).
  const files: [string, Uint8Array, RegExp, RegExp?][] = [
    [
      "binary bytes",
      Uint8Array.from([0x1b, 0x5b, 0x32, 0x4a, 0x00, 0xff, 0xfe, 0x9b, 0x07]),
      /invalid UTF-8 at byte 5$/m,
    ],
    [
      "an escape sequence first",
      Buffer.from("\u001b]0;owned\u0007\u001b[2J{}", "utf8"),
      /unexpected U\+001B at byte 0 \(\$\)$/m,
    ],
    [
      "a bidi override and an escape in a member name, then garbage",
      Buffer.from('{"\u202e\\u001b[31mevil\u2066\u2028x": nope}', "utf8"),
      /unexpected 'n' at byte \d+ \(\$\["\\u202e\\u001b\[31mevil\\u2066\\u2028x"\]\)$/m,
      /unexpected 'n' at byte \d+ \(\$\["<U\+202E>\\u001b\[31mevil<U\+2066><U\+2028>x"\]\)$/m,
    ],
    [
      "tag characters in a member name",
      Buffer.from('{"\u{E0041}\u{E0042}": ]', "utf8"),
      /unexpected '\]' at byte \d+ \(\$\["\\udb40\\udc41\\udb40\\udc42"\]\)$/m,
      /unexpected '\]' at byte \d+ \(\$\["<U\+E0041><U\+E0042>"\]\)$/m,
    ],
  ];
  for (const [what, bytes, message, shown] of files) {
    it(`digest of ${what}: exit 2, the message escapes every unsafe character`, () => {
      const path = ws.write(`${what.replace(/\W+/g, "-")}.json`, bytes);
      const r = run(["digest", path], { cwd: ROOT });
      assert.equal(r.code, 2, r.stderr);
      assert.ok(oneLine(r.stderr), r.stderr);
      assert.doesNotMatch(r.stderr, RAW_UNSAFE, JSON.stringify(r.stderr));
      assert.match(r.stderr, message);
    });

    it(`verify of ${what}: UNREACHABLE, exit 1, the line escapes every unsafe character`, () => {
      const sub = ws.path(`v-${what.replace(/\W+/g, "-")}`);
      mkdirSync(sub);
      writeFileSync(`${sub}/docs.json`, JSON.stringify({ tools: baseTools() }));
      const add = run(["add", "docs", "--file", "docs.json"], { cwd: sub });
      assert.equal(add.code, 0, add.stderr);
      writeFileSync(`${sub}/docs.json`, bytes);
      const r = run(["verify"], { cwd: sub });
      assert.equal(r.code, 1, r.stderr);
      const line = r.stdout.split("\n").find((l) => l.startsWith("docs  UNREACHABLE"));
      assert.ok(line, r.stdout);
      assert.doesNotMatch(r.stdout, RAW_UNSAFE, JSON.stringify(r.stdout));
      assert.match(line, shown ?? message);
      // The lock is untouched.
      assert.match(readFileSync(`${sub}/contractpin.lock`, "utf8"), /"docs"/);
    });
  }
});
