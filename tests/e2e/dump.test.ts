// `contractpin dump` prints a server's tools/list pages exactly as served: a
// JSON array of the bytes of each page's JSON-RPC response. What it prints is
// a dump file that `digest`, `add --file` and the file transport read back to
// the digests of the live server; the independent Python implementation
// (pythonDigest) agrees; the bytes are the server's, not a re-serialisation.
import assert from "node:assert/strict";
import { readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { tempDir } from "../helpers/cleanup.js";
import { oneLine, pythonDigest, runCli } from "../helpers/cli.js";
import { SERVERS, startEverythingHttp, type Running } from "../helpers/servers.js";

const ODD = new URL("../fixtures/servers/dump-odd-format-server.mjs", import.meta.url).pathname;

interface Pinned {
  digest: string;
  tool_count: number;
  tools: Record<string, unknown>;
}

/** The digests of a lock's server, as the lock holds them. */
function pinned(lock: string, name: string): Pinned {
  const server = (JSON.parse(readFileSync(lock, "utf8")) as { servers: Record<string, Pinned> })
    .servers[name]!;
  return { digest: server.digest, tool_count: server.tool_count, tools: server.tools };
}

/** `contractpin digest --json FILE`, which must succeed. */
function digestOf(file: string): Pinned {
  const r = runCli(["digest", "--json", file]);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout) as Pinned;
}

/** Runs `dump ARGS`, checks it succeeded with nothing but the dump on stdout, and saves it. */
function dumpTo(file: string, args: string[], cwd?: string): string {
  const r = runCli(["dump", ...args], cwd === undefined ? {} : { cwd });
  assert.equal(r.code, 0, r.stderr);
  assert.ok(r.stdout.startsWith("[\n") && r.stdout.endsWith("\n]\n"), r.stdout.slice(0, 200));
  writeFileSync(file, r.stdout);
  return r.stdout;
}

describe("contractpin dump", () => {
  it("dumps a stdio server from npm to what add pins live and Python digests", () => {
    const dir = tempDir();
    const lock = join(dir, "contractpin.lock");
    const dump = join(dir, "memory.json");
    const add = runCli([
      "add",
      "memory",
      "--tools-only",
      "--lock",
      lock,
      "--",
      process.execPath,
      SERVERS.memory,
    ]);
    assert.equal(add.code, 0, add.stderr);
    dumpTo(dump, ["--", process.execPath, SERVERS.memory]);
    const expected = pinned(lock, "memory");
    assert.ok(expected.tool_count > 0);
    assert.deepEqual(digestOf(dump), expected);
    assert.deepEqual(pythonDigest(dump), expected);
  });

  it("--output never writes through a symbolic link, at the file or a folder of its path (exit 2, one line, the server never started)", () => {
    const dir = tempDir();
    const victim = tempDir();
    writeFileSync(join(victim, "target"), "precious\n");
    symlinkSync(join(victim, "target"), join(dir, "out.json"));
    symlinkSync(victim, join(dir, "linked"));
    // A server that would leave a mark if it started: the refusal comes first.
    const marker = join(victim, "started");
    const command = [
      process.execPath,
      "-e",
      `require("fs").writeFileSync(${JSON.stringify(marker)}, "")`,
    ];
    for (const output of ["out.json", "linked/new.json"]) {
      const r = runCli(["dump", "--output", output, "--", ...command], { cwd: dir });
      assert.equal(r.code, 2, r.stderr);
      assert.ok(oneLine(r.stderr), r.stderr);
      assert.match(r.stderr, /cannot write the dump: .*is a symbolic link/);
    }
    assert.equal(readFileSync(join(victim, "target"), "utf8"), "precious\n");
    assert.deepEqual(readdirSync(victim).sort(), ["target"]);
  });

  describe("over Streamable HTTP", () => {
    let server: Running;
    before(async () => {
      server = await startEverythingHttp();
    });
    after(async () => {
      await server.stop();
    });

    it("writes --output atomically, and it reads back to the live pin's digests", () => {
      const dir = tempDir();
      const lock = join(dir, "contractpin.lock");
      const dump = join(dir, "everything.json");
      const add = runCli([
        "add",
        "everything",
        "--tools-only",
        "--lock",
        lock,
        "--url",
        server.url,
      ]);
      assert.equal(add.code, 0, add.stderr);
      const r = runCli(["dump", "--url", server.url, "--output", dump]);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, "", "nothing but the dump goes to stdout, and it went to the file");
      assert.match(r.stderr, /^contractpin: wrote the dump of \(--url\) to .*everything\.json\n$/);
      assert.ok(readFileSync(dump, "utf8").endsWith("\n]\n"));
      const expected = pinned(lock, "everything");
      assert.ok(expected.tool_count > 0);
      assert.deepEqual(digestOf(dump), expected);
      assert.deepEqual(pythonDigest(dump), expected);
    });
  });

  it("dumps every page of a paginated server; add --file pins it as add pins it live", () => {
    const dir = tempDir();
    const lock = join(dir, "contractpin.lock");
    const dump = join(dir, "pages.json");
    const command = [process.execPath, SERVERS.fakeStdio, "paginate"];
    const text = dumpTo(dump, ["--", ...command]);
    const pages = JSON.parse(text) as Array<{ id: unknown; result: { nextCursor?: string } }>;
    assert.equal(pages.length, 4);
    assert.deepEqual(
      pages.map((p) => p.result.nextCursor),
      ["p2", "p3", "p4", undefined],
    );
    // One JSON-RPC response per line, each as the server wrote it.
    assert.equal(text.split("\n").length, 4 + 3);
    const live = runCli(["add", "live", "--tools-only", "--lock", lock, "--", ...command]);
    assert.equal(live.code, 0, live.stderr);
    const file = runCli(["add", "file", "--lock", lock, "--file", dump]);
    assert.equal(file.code, 0, file.stderr);
    assert.deepEqual(pinned(lock, "file"), pinned(lock, "live"));
    assert.equal(pinned(lock, "live").tool_count, 4);
    assert.deepEqual(pythonDigest(dump), pinned(lock, "live"));
  });

  it("keeps each page's bytes exactly as the server sent them", () => {
    const dir = tempDir();
    const record = join(dir, "sent.jsonl");
    const text = dumpTo(join(dir, "odd.json"), ["--", process.execPath, ODD, record]);
    const sent = readFileSync(record, "utf8").trimEnd();
    assert.equal(sent.split("\n").length, 1, "one tools/list response was sent");
    // The test can tell: any re-serialisation (JSON.stringify, sorted keys, JCS) changes these bytes.
    assert.notEqual(JSON.stringify(JSON.parse(sent)), sent);
    assert.equal(text, `[\n${sent}\n]\n`);
  });

  it("dumps a server of the lock as the lock defines it", () => {
    const dir = tempDir();
    const lock = join(dir, "contractpin.lock");
    const dump = join(dir, "memory.json");
    // Pinned from the lock's directory with a relative path: dump must run it there too.
    const add = runCli(
      ["add", "memory", "--tools-only", "--lock", lock, "--", process.execPath, SERVERS.memory],
      {
        cwd: dir,
      },
    );
    assert.equal(add.code, 0, add.stderr);
    dumpTo(dump, ["memory", "--lock", lock]);
    assert.deepEqual(digestOf(dump), pinned(lock, "memory"));
  });

  it("refuses a lock server that is read from a file: it is already a dump (exit 2)", () => {
    const dir = tempDir();
    const lock = join(dir, "contractpin.lock");
    const dump = join(dir, "pages.json");
    dumpTo(dump, ["--", process.execPath, SERVERS.fakeStdio, "paginate"]);
    assert.equal(runCli(["add", "f", "--lock", lock, "--file", dump]).code, 0);
    const r = runCli(["dump", "f", "--lock", lock]);
    assert.equal(r.code, 2);
    assert.equal(r.stdout, "");
    assert.equal(
      r.stderr,
      "contractpin: server f is read from a file: it is already a dump: pages.json\n",
    );
  });

  it("names the servers of the lock for an unknown NAME (exit 2)", () => {
    const dir = tempDir();
    const lock = join(dir, "contractpin.lock");
    const dump = join(dir, "pages.json");
    dumpTo(dump, ["--", process.execPath, SERVERS.fakeStdio, "paginate"]);
    assert.equal(runCli(["add", "pages", "--lock", lock, "--file", dump]).code, 0);
    const r = runCli(["dump", "nope", "--lock", lock]);
    assert.equal(r.code, 2);
    assert.equal(r.stdout, "");
    assert.equal(r.stderr, `contractpin: no server named 'nope' in ${lock}; it pins: pages\n`);
  });

  it("fails an unreachable server with one line (exit 1) and prints no dump", () => {
    const r = runCli(["dump", "--url", "http://127.0.0.1:1/mcp", "--timeout", "5"]);
    assert.equal(r.code, 1);
    assert.equal(r.stdout, "");
    assert.ok(oneLine(r.stderr), r.stderr);
    assert.match(r.stderr, /^contractpin: server \(--url\): /);
  });

  it("uses a literal credential from --env but never shows it", () => {
    const secret = "sk-live-0123456789abcdefXYZ";
    const r = runCli([
      "dump",
      "--env",
      `API_KEY=${secret}`,
      "--",
      process.execPath,
      "-e",
      "process.stderr.write('bad key ' + process.env.API_KEY + '\\n'); process.exit(3)",
    ]);
    assert.equal(r.code, 1);
    assert.equal(r.stdout, "");
    assert.ok(!r.stderr.includes(secret), r.stderr);
    assert.ok(!r.stderr.includes("0123456789"), r.stderr);
    assert.match(r.stderr, /bad key <env API_KEY>/);
  });

  it("shows a value expanded from a reference as the reference", () => {
    const secret = "sk-env-9876543210fedcbaQRS";
    const r = runCli(
      [
        "dump",
        "--env",
        "API_KEY=${DUMP_TEST_SECRET}",
        "--",
        process.execPath,
        "-e",
        "process.stderr.write('bad key ' + process.env.API_KEY + '\\n'); process.exit(3)",
      ],
      { env: { DUMP_TEST_SECRET: secret } },
    );
    assert.equal(r.code, 1);
    assert.equal(r.stdout, "");
    assert.ok(!r.stderr.includes(secret), r.stderr);
    assert.match(r.stderr, /bad key \$\{DUMP_TEST_SECRET\}/);
  });

  it("takes exactly one server (exit 2)", () => {
    const r = runCli(["dump"]);
    assert.equal(r.code, 2);
    assert.equal(
      r.stderr,
      "contractpin: dump needs exactly one server: NAME, --url URL, or -- COMMAND [ARG...] (see 'contractpin dump --help')\n",
    );
  });
});
