// Real MCP servers from npm, over stdio and Streamable HTTP on loopback: what is
// pinned live equals what `contractpin digest` and the independent Python
// implementation compute from the same server's raw tools/list response.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { pythonDigest, runCli } from "../helpers/cli.js";
import { SERVERS, startEverythingHttp, writeRawDump, type Running } from "../helpers/servers.js";
import { Workspace } from "../helpers/workspace.js";

interface Case {
  name: string;
  argv: (ws: Workspace) => string[];
  env?: (ws: Workspace) => Record<string, string>;
  tools: number;
}

const cases: Case[] = [
  {
    name: "memory",
    argv: () => [process.execPath, SERVERS.memory],
    env: (ws) => ({ MEMORY_FILE_PATH: ws.path("memory.jsonl") }),
    tools: 9,
  },
  { name: "everything", argv: () => [process.execPath, SERVERS.everything, "stdio"], tools: 13 },
  { name: "filesystem", argv: (ws) => [process.execPath, SERVERS.filesystem, ws.dir], tools: 14 },
];

describe("real servers over stdio", () => {
  for (const c of cases) {
    it(`${c.name}: add, then verify (exit 0); digests equal the dump's, by contractpin digest and by Python`, () => {
      const ws = new Workspace();
      const env = c.env?.(ws) ?? {};
      const envArgs = Object.entries(env).flatMap(([k, v]) => ["--env", `${k}=${v}`]);
      const add = runCli(["add", c.name, ...envArgs, "--", ...c.argv(ws)], { cwd: ws.dir });
      assert.equal(add.code, 0, add.stderr);
      assert.match(
        add.stdout,
        new RegExp(`^pinned ${c.name} \\(stdio .*\\): ${c.tools} tools, sha256:`),
      );
      const verify = runCli(["verify"], { cwd: ws.dir });
      assert.equal(verify.code, 0, verify.stdout + verify.stderr);
      assert.match(verify.stdout, /OK: 1 server matches the lock/);

      const pinned = ws.lockJson().servers[c.name]!;
      const dump = writeRawDump(ws.path("dump.json"), c.argv(ws), env);
      const digest = runCli(["digest", dump, "--json"]);
      assert.equal(digest.code, 0, digest.stderr);
      const fromDump = JSON.parse(digest.stdout);
      assert.deepEqual(
        { tool_count: pinned["tool_count"], digest: pinned["digest"], tools: pinned["tools"] },
        fromDump,
      );
      assert.deepEqual(fromDump, pythonDigest(dump));
    });
  }

  it("init --force re-pins a lock of several real servers, and verify passes", () => {
    const ws = new Workspace();
    for (const c of cases) {
      const envArgs = Object.entries(c.env?.(ws) ?? {}).flatMap(([k, v]) => ["--env", `${k}=${v}`]);
      assert.equal(
        runCli(["add", c.name, ...envArgs, "--", ...c.argv(ws)], { cwd: ws.dir }).code,
        0,
      );
    }
    const before = ws.read();
    const init = runCli(["init", "--force"], { cwd: ws.dir });
    assert.equal(init.code, 0, init.stderr);
    assert.equal(init.stdout.trimEnd().split("\n").length, 3);
    assert.equal(ws.read(), before, "nothing changed, so the lock was not rewritten");
    assert.equal(runCli(["verify"], { cwd: ws.dir }).code, 0);
  });
});

describe("real server over Streamable HTTP", () => {
  let server: Running;
  before(async () => {
    server = await startEverythingHttp();
  });
  after(async () => {
    await server.stop();
  });

  it("everything: add --url with a header reference, verify 0; same digests as over stdio; no secret in the lock", () => {
    const ws = new Workspace();
    const secret = "tok_3xQ9vLmP2rT8wZ5k";
    const env = { MCP_TOKEN: secret };
    const add = runCli(
      ["add", "everything", "--url", server.url, "--header", "Authorization: Bearer ${MCP_TOKEN}"],
      {
        cwd: ws.dir,
        env,
      },
    );
    assert.equal(add.code, 0, add.stderr);
    const verify = runCli(["verify"], { cwd: ws.dir, env });
    assert.equal(verify.code, 0, verify.stdout + verify.stderr);
    const lock = ws.read();
    assert.ok(!lock.includes(secret));
    assert.deepEqual(ws.lockJson().servers["everything"]!["headers"], {
      Authorization: "Bearer ${MCP_TOKEN}",
    });

    const dump = writeRawDump(ws.path("everything.json"), [
      process.execPath,
      SERVERS.everything,
      "stdio",
    ]);
    assert.equal(
      ws.lockJson().servers["everything"]!["digest"],
      (pythonDigest(dump) as { digest: string }).digest,
    );
  });

  it("verify without the header's variable set: exit 1 naming the variable", () => {
    const ws = new Workspace();
    runCli(
      ["add", "everything", "--url", server.url, "--header", "Authorization: Bearer ${MCP_TOKEN}"],
      {
        cwd: ws.dir,
        env: { MCP_TOKEN: "x" },
      },
    );
    const r = runCli(["verify"], { cwd: ws.dir, env: { MCP_TOKEN: undefined } });
    assert.equal(r.code, 1);
    assert.match(
      r.stdout,
      /everything {2}UNREACHABLE {2}header Authorization refers to \$\{MCP_TOKEN\}, but MCP_TOKEN is not set/,
    );
  });
});

describe("secrets never reach the lock", () => {
  it("a literal header and an env secret passed as a reference: neither value appears in the lock", () => {
    const ws = new Workspace();
    const envSecret = "sk-live-9f8e7d6c5b4a3f2e1d0c";
    const headerSecret = "Bearer hdr-5b4a3f2e1d0c9f8e7d6c";
    const add = runCli(
      [
        "add",
        "memory",
        "--env",
        "API_KEY=${API_KEY}",
        "--env",
        `MEMORY_FILE_PATH=${ws.path("m.jsonl")}`,
        "--",
        process.execPath,
        SERVERS.memory,
      ],
      { cwd: ws.dir, env: { API_KEY: envSecret } },
    );
    assert.equal(add.code, 0, add.stderr);
    const lock = ws.read();
    assert.ok(!lock.includes(envSecret));
    assert.match(lock, /"API_KEY": "\$\{API_KEY\}"/);
    assert.equal(runCli(["verify"], { cwd: ws.dir, env: { API_KEY: envSecret } }).code, 0);
    // And a credential given literally in a header is refused, never written.
    const http = runCli(
      [
        "add",
        "remote",
        "--url",
        "http://127.0.0.1:9/mcp",
        "--header",
        `Authorization: ${headerSecret}`,
      ],
      { cwd: ws.dir },
    );
    assert.equal(http.code, 2);
    assert.match(http.stderr, /header Authorization holds a literal credential/);
    assert.ok(!http.stderr.includes("hdr-5b4a3f2e1d0c9f8e7d6c"));
    assert.ok(!ws.read().includes("hdr-5b4a3f2e1d0c9f8e7d6c"));
  });
});
