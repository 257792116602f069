// Real MCP servers from npm, over stdio and Streamable HTTP on loopback: what is
// pinned live equals what `contractpin digest` and the independent Python
// implementation compute from the same server's raw tools/list response.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { pythonDigest, runCli } from "../helpers/cli.js";
import {
  SERVERS,
  startEverythingHttp,
  startHttpScript,
  writeRawDump,
  type Running,
} from "../helpers/servers.js";
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
      // Tools only: the dump below is a tools/list dump (the surface has its own test).
      const add = runCli(["add", c.name, "--tools-only", ...envArgs, "--", ...c.argv(ws)], {
        cwd: ws.dir,
      });
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
    const lines = init.stdout.trimEnd().split("\n");
    // One line per server, then what was written (issue 37: both files named).
    assert.equal(lines.filter((l) => !l.startsWith("  ")).length, 4, init.stdout);
    assert.equal(lines.at(-1), "contractpin.lock and contractpin.contracts.json are unchanged");
    // What the rules find in what was pinned (tests/core/findings/real-servers.test.ts
    // reviews each): server-everything's gzip tool has a default URL; server-memory
    // and server-filesystem have nothing (its read_file names read_text_file without
    // steering the model to it, which is no finding since issue 38).
    assert.deepEqual(
      lines.filter((l) => l.startsWith("  review:")).map((l) => l.split(" in what ")[1]),
      ["everything serves (pinned as served; see docs/findings.md)"],
    );
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
      [
        "add",
        "everything",
        "--tools-only",
        "--url",
        server.url,
        "--header",
        "Authorization: Bearer ${MCP_TOKEN}",
      ],
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
  const servers: Running[] = [];
  after(async () => {
    await Promise.all(servers.map((s) => s.stop()));
  });

  interface Request {
    method: string;
    headers: Record<string, string>;
    body: string;
  }
  function requests(report: string): Request[] {
    return readFileSync(report, "utf8")
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as Request);
  }

  it("add --env with a reference: the lock holds the reference, the server gets the value (real server)", () => {
    const ws = new Workspace();
    const envSecret = "sk-live-9f8e7d6c5b4a3f2e1d0c";
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
    assert.deepEqual(ws.lockJson().servers["memory"]!["env"], {
      API_KEY: "${API_KEY}",
      MEMORY_FILE_PATH: ws.path("m.jsonl"),
    });
    assert.equal(runCli(["verify"], { cwd: ws.dir, env: { API_KEY: envSecret } }).code, 0);
    // And a credential given literally in a header is refused before anything is
    // read (so a refused port is enough here), never written.
    const headerSecret = "Bearer hdr-5b4a3f2e1d0c9f8e7d6c";
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

  it("add --env with a literal that looks like a credential, for a server that answers: exit 2, no lock, the server never started", () => {
    const ws = new Workspace();
    const report = ws.path("env.json");
    const argv = ["--", process.execPath, SERVERS.envReport, report];
    const literal = "sk-live-4c3b2a1f0e9d8c7b6a5f";
    const add = runCli(["add", "reporter", "--env", `API_KEY=${literal}`, ...argv], {
      cwd: ws.dir,
    });
    assert.equal(add.code, 2, add.stdout + add.stderr);
    assert.match(
      add.stderr,
      /^contractpin: server reporter: env API_KEY looks like a credential and would be written to the lock; pass it as a reference .*--env API_KEY='\$\{API_KEY\}'/,
    );
    assert.ok(!add.stderr.includes(literal));
    assert.ok(!existsSync(ws.path("contractpin.lock")), "no lock was written");
    assert.ok(!existsSync(report), "the server was not even started");
    // The same server with the literal passed through a reference: pinned, exit 0.
    const ok = runCli(["add", "reporter", "--env", "API_KEY=${API_KEY}", ...argv], {
      cwd: ws.dir,
      env: { API_KEY: literal },
    });
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(JSON.parse(readFileSync(report, "utf8"))["API_KEY"], literal);
    assert.ok(!ws.read().includes(literal));
  });

  it("add --header with a literal value, for a server that answers: exit 0, the value sent for that read only, never written", async () => {
    const ws = new Workspace();
    const report = ws.path("requests.jsonl");
    const server = await startHttpScript(SERVERS.recordingHttp, ["streamable", report]);
    servers.push(server);
    // Not shaped like a credential, so add reads with it (a literal that looks like one may be refused).
    const literal = "literal-trace-value-7";
    const add = runCli(
      ["add", "remote", "--tools-only", "--url", server.url, "--header", `X-Trace: ${literal}`],
      {
        cwd: ws.dir,
      },
    );
    assert.equal(add.code, 0, add.stderr);
    assert.match(add.stdout, /^pinned remote \(http .*\): 4 tools, sha256:/);
    assert.match(
      add.stderr,
      /^contractpin: warning: server remote: header X-Trace is not written to the lock \(literal header values never are\)/,
    );
    assert.ok(!add.stderr.includes(literal) && !add.stdout.includes(literal));
    const sent = requests(report);
    assert.ok(sent.length > 0 && sent.every((r) => r.headers["x-trace"] === literal));
    const lock = ws.read();
    assert.ok(!lock.includes(literal), "the lock holds the literal");
    assert.deepEqual(ws.lockJson().servers["remote"], {
      transport: "http",
      url: server.url,
      ...(pythonDigest(`${report}.tools-list.json`) as object),
    });
    // verify reads with what the lock holds: no X-Trace.
    const before = sent.length;
    const verify = runCli(["verify"], { cwd: ws.dir });
    assert.equal(verify.code, 0, verify.stdout + verify.stderr);
    const later = requests(report).slice(before);
    assert.ok(later.length > 0 && later.every((r) => r.headers["x-trace"] === undefined));
  });

  it("init --from a config with literal secrets, for servers that answer: exit 0, the lock holds references, the servers got the literals", async () => {
    const ws = new Workspace();
    const report = ws.path("requests.jsonl");
    const server = await startHttpScript(SERVERS.recordingHttp, ["streamable", report]);
    servers.push(server);
    const token = "ghp_Zq8Xw2Vb6Nm4Lk9Jh3Gf7Dd5Ss1Aa0Pp8Oo";
    const bearer = "bearer-literal-3e5f7a9c1b";
    const envReport = ws.path("env.json");
    ws.write(
      ".mcp.json",
      JSON.stringify({
        mcpServers: {
          local: {
            command: process.execPath,
            args: [SERVERS.envReport, envReport],
            env: { GITHUB_TOKEN: token, DEBUG: "1" },
          },
          remote: { type: "http", url: server.url, headers: { Authorization: `Bearer ${bearer}` } },
        },
      }),
    );
    const init = runCli(["init", "--from", ".mcp.json"], { cwd: ws.dir });
    assert.equal(init.code, 0, init.stderr);
    assert.match(init.stdout, /^pinned local \(stdio .*\): 4 tools/m);
    assert.match(init.stdout, /^pinned remote \(http .*\): 4 tools/m);
    assert.match(
      init.stderr,
      /env GITHUB_TOKEN holds a literal credential.*set GITHUB_TOKEN when verifying/,
    );
    assert.match(
      init.stderr,
      /header Authorization holds a literal credential.*set REMOTE_AUTHORIZATION/,
    );
    for (const text of [ws.read(), init.stdout, init.stderr]) {
      assert.ok(!text.includes(token) && !text.includes(bearer), text);
    }
    const lock = ws.lockJson();
    assert.deepEqual(lock.servers["local"]!["env"], {
      DEBUG: "1",
      GITHUB_TOKEN: "${GITHUB_TOKEN}",
    });
    assert.deepEqual(lock.servers["remote"]!["headers"], {
      Authorization: "Bearer ${REMOTE_AUTHORIZATION}",
    });
    // The literals were used for this one read.
    assert.equal(JSON.parse(readFileSync(envReport, "utf8"))["GITHUB_TOKEN"], token);
    assert.ok(requests(report).every((r) => r.headers["authorization"] === `Bearer ${bearer}`));
    // And verify sends what the environment holds then.
    const env = { GITHUB_TOKEN: "from-ci-1", REMOTE_AUTHORIZATION: "from-ci-2" };
    const verify = runCli(["verify"], { cwd: ws.dir, env });
    assert.equal(verify.code, 0, verify.stdout + verify.stderr);
    assert.equal(JSON.parse(readFileSync(envReport, "utf8"))["GITHUB_TOKEN"], "from-ci-1");
    assert.equal(requests(report).at(-1)!.headers["authorization"], "Bearer from-ci-2");
  });
});
