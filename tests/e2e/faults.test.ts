// Fake servers, one for each fault real servers do not produce. Each asserts
// the exit code and the message; none may hang, leak a process or pass.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, describe, it } from "node:test";
import { execFileSync, spawnSync } from "node:child_process";
import { createServer as createNetServer } from "node:net";
import { CLI, pythonDigest, runCli, startCli } from "../helpers/cli.js";
import {
  alive,
  ended,
  freePort,
  SERVERS,
  startFakeHttp,
  type Running,
} from "../helpers/servers.js";
import { Workspace } from "../helpers/workspace.js";

const TOOLS = JSON.parse(
  readFileSync(new URL("../fixtures/servers/tools.json", import.meta.url), "utf8"),
);

/** A lock with one stdio fake server in `mode`, written by hand (no read needed). */
function fakeStdioLock(ws: Workspace, mode: string, name = "fake"): void {
  ws.dump("expected.json", TOOLS);
  assert.equal(
    runCli(["add", name, "--tools-only", "--file", "expected.json"], { cwd: ws.dir }).code,
    0,
  );
  const lock = ws.lockJson();
  const pinned = lock.servers[name]!;
  delete pinned["path"];
  lock.servers[name] = {
    ...pinned,
    transport: "stdio",
    command: [process.execPath, SERVERS.fakeStdio, mode, ws.path("state")],
  };
  ws.write("contractpin.lock", JSON.stringify(lock, null, 2));
}

function addFake(ws: Workspace, mode: string, ...extra: string[]) {
  return runCli(
    [
      "add",
      "fake",
      "--tools-only",
      ...extra,
      "--",
      process.execPath,
      SERVERS.fakeStdio,
      mode,
      ws.path("state"),
    ],
    { cwd: ws.dir },
  );
}

describe("stdio faults", () => {
  it("pagination over 4 pages: every tool, and the same digests as one page", () => {
    const ws = new Workspace();
    const r = addFake(ws, "paginate");
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /: 4 tools, /);
    ws.dump("one-page.json", TOOLS);
    const onePage = pythonDigest(ws.path("one-page.json")) as Record<string, unknown>;
    const pinned = ws.lockJson().servers["fake"]!;
    assert.deepEqual(
      { tool_count: pinned["tool_count"], digest: pinned["digest"], tools: pinned["tools"] },
      onePage,
    );
    assert.equal(runCli(["verify"], { cwd: ws.dir }).code, 0);
  });

  it("a cursor cycle: exit 1, not a loop", () => {
    const ws = new Workspace();
    fakeStdioLock(ws, "cursor-cycle");
    const r = runCli(["verify"], { cwd: ws.dir });
    assert.equal(r.code, 1);
    assert.match(
      r.stdout,
      /fake {2}UNREACHABLE {2}the server repeated the cursor "b" on tools\/list page 3: its pagination never ends/,
    );
  });

  it("a duplicate key in the wire bytes: exit 1 (JSON.parse would have kept the second)", () => {
    const ws = new Workspace();
    const r = addFake(ws, "duplicate-key");
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /server fake: tools\/list page 1: the server sent a message that is not strict JSON: duplicate member name "description"/,
    );
  });

  it("tools exactly as served: null description, a __proto__ property, a vendor annotation key", () => {
    const ws = new Workspace();
    assert.equal(addFake(ws, "vendor").code, 0);
    const raw =
      '{"tools":[{"name":"odd","description":null,"inputSchema":{"type":"object","properties":{"__proto__":{"type":"string"}}},"annotations":{"readOnlyHint":true,"category":"vendor"}}]}';
    ws.write("raw.json", raw);
    const expected = pythonDigest(ws.path("raw.json")) as { digest: string };
    assert.equal(ws.lockJson().servers["fake"]!["digest"], expected.digest);
    ws.write("without-vendor-key.json", raw.replace(',"category":"vendor"', ""));
    const withoutVendorKey = pythonDigest(ws.path("without-vendor-key.json")) as {
      digest: string;
    };
    assert.notEqual(withoutVendorKey.digest, expected.digest);
  });

  it("a description that changes on the second run: drift caught (exit 1)", () => {
    const ws = new Workspace();
    assert.equal(addFake(ws, "drift").code, 0);
    const r = runCli(["verify"], { cwd: ws.dir });
    assert.equal(r.code, 1);
    assert.match(r.stdout, /^ {2}DRIFTED {4}alpha +changed: description$/m);
  });

  it("a crash mid-list: exit 1, with the server's last stderr lines", () => {
    const ws = new Workspace();
    fakeStdioLock(ws, "crash-mid-list");
    const r = runCli(["verify"], { cwd: ws.dir });
    assert.equal(r.code, 1);
    assert.match(
      r.stdout,
      /fake {2}UNREACHABLE {2}tools\/list page 1: the server closed the connection/,
    );
    assert.match(r.stdout, /\| segfault in tools\/list/);
  });

  it("a server that exits at once: exit 1, with its stderr", () => {
    const ws = new Workspace();
    const r = addFake(ws, "exit-at-once");
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /^contractpin: server fake: the server exited with code 3 before answering\n {2}\| fatal: missing configuration/m,
    );
  });

  it("a hang: the timeout is honoured, and the server is ended", async () => {
    const ws = new Workspace();
    fakeStdioLock(ws, "hang");
    const started = Date.now();
    const r = runCli(["verify", "--timeout", "1.5"], { cwd: ws.dir });
    const elapsed = (Date.now() - started) / 1000;
    assert.equal(r.code, 1);
    assert.match(r.stdout, /fake {2}UNREACHABLE {2}tools\/list page 1: timed out after 1\.5 s/);
    // On contractpin's own clock (its progress line): not before the deadline,
    // and then only the time to end the server. Bounds are at least twice what
    // a loaded 2-core machine measured (2.7 s on its clock, 3.7 s overall), far
    // below the default timeout of 30 s.
    const own = Number(/^\[1\/1\] fake: UNREACHABLE \((\d+\.\d\d) s\)$/m.exec(r.stderr)?.[1]);
    assert.ok(own >= 1.5 && own < 5.5, `contractpin measured ${own} s: ${r.stderr}`);
    assert.ok(elapsed < 8, `took ${elapsed} s`);
    assert.ok(await ended(Number(ws.read("state.pid"))), "the hung server was ended");
  });

  it("a line on stdout that is not JSON: skipped with a warning, as official clients skip it", () => {
    const ws = new Workspace();
    const r = addFake(ws, "garbage");
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stderr,
      /^contractpin: warning: server fake: the server wrote a line that is not JSON on stdout, ignored: "Server starting\.\.\. this line is not JSON"$/m,
    );
  });

  it("a 10 MB stderr flood: read normally, never mixed into contractpin's output", () => {
    const ws = new Workspace();
    const r = addFake(ws, "stderr-flood");
    assert.equal(r.code, 0, r.stderr.slice(0, 500));
    assert.equal(r.stderr, "");
    assert.ok(!r.stdout.includes("xxxx"));
  });

  it("a grandchild process does not survive contractpin", async () => {
    const ws = new Workspace();
    assert.equal(addFake(ws, "grandchild").code, 0);
    const grandchild = Number(ws.read("state.grandchild"));
    assert.ok(grandchild > 0);
    assert.ok(await ended(grandchild), "the grandchild was ended with the server's process group");
  });

  it("SIGTERM ignored: the server is still ended (SIGKILL), within the grace period", async () => {
    const ws = new Workspace();
    const started = Date.now();
    assert.equal(addFake(ws, "ignore-sigterm").code, 0);
    // Twice the 4.7 s measured on a loaded machine (a grace period of 1.3 s).
    assert.ok(Date.now() - started < 10_000, `took ${Date.now() - started} ms`);
    assert.ok(await ended(Number(ws.read("state.pid"))));
  });

  it("a command that does not exist: exit 1", () => {
    const ws = new Workspace();
    const r = runCli(["add", "nope", "--tools-only", "--", "contractpin-no-such-command-xyz"], {
      cwd: ws.dir,
    });
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /server nope: cannot start contractpin-no-such-command-xyz: command not found/,
    );
  });

  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    it(`${signal} to contractpin while a server hangs: it ends the server and its grandchild, then exits 2`, async () => {
      const ws = new Workspace();
      fakeStdioLock(ws, "grandchild+hang", "slow");
      const run = startCli(["verify", "--timeout", "30"], { cwd: ws.dir });
      await waitFor(() => {
        try {
          return alive(Number(ws.read("state.grandchild")));
        } catch {
          return false;
        }
      });
      run.child.kill(signal);
      const started = Date.now();
      const r = await run.done;
      assert.ok(Date.now() - started < 4000, `took ${Date.now() - started} ms`);
      assert.equal(r.code, 2, r.stdout + r.stderr);
      assert.match(r.stderr, new RegExp(`contractpin: interrupted by ${signal}\n$`));
      assert.ok(await ended(Number(ws.read("state.pid"))));
      assert.ok(await ended(Number(ws.read("state.grandchild"))));
    });
  }
});

async function waitFor(check: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("HTTP faults", () => {
  const servers: Running[] = [];
  after(async () => {
    await Promise.all(servers.map((s) => s.stop()));
  });
  async function fake(mode: string, stateFile?: string): Promise<string> {
    const s = await startFakeHttp(mode, stateFile);
    servers.push(s);
    return s.url;
  }

  it("a description that changes on the second run: drift caught over HTTP", async () => {
    const ws = new Workspace();
    const url = await fake("drift", ws.path("state"));
    assert.equal(runCli(["add", "remote", "--tools-only", "--url", url], { cwd: ws.dir }).code, 0);
    const r = runCli(["verify"], { cwd: ws.dir });
    assert.equal(r.code, 1);
    assert.match(r.stdout, /^ {2}DRIFTED {4}alpha +changed: description$/m);
  });

  it("a duplicate key in an HTTP body: exit 1", async () => {
    const ws = new Workspace();
    const r = runCli(["add", "remote", "--tools-only", "--url", await fake("duplicate-key")], {
      cwd: ws.dir,
    });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /duplicate member name "description"/);
  });

  const statuses: [string, RegExp][] = [
    // No header configured: the server wants credentials, and the line says how to pass them.
    [
      "status-401",
      /HTTP 401 Unauthorized: the server wants credentials, and none are configured for it; pass them as a header .*--header 'Authorization: Bearer \$\{TOKEN\}'/,
    ],
    ["status-403", /HTTP 403 Forbidden: the server wants credentials/],
    ["status-404", /HTTP 404 Not Found: no MCP endpoint at this URL/],
    ["status-500", /HTTP 500 Internal Server Error: the server failed/],
    ["not-json", /not strict JSON|not JSON/],
    ["html", /not an MCP server/],
  ];
  it("status-401 with a header configured: the server refused those credentials", async () => {
    const ws = new Workspace();
    const r = runCli(
      [
        "add",
        "remote",
        "--tools-only",
        "--url",
        await fake("status-401"),
        "--header",
        "Authorization: Bearer ${T}",
      ],
      { cwd: ws.dir, env: { T: "wrong-token-value" } },
    );
    assert.equal(r.code, 1, r.stderr);
    assert.match(
      r.stderr,
      /HTTP 401 Unauthorized: the server refused the credentials \(check the headers\)/,
    );
    assert.ok(!r.stderr.includes("wrong-token-value"));
  });

  for (const [mode, message] of statuses) {
    it(`${mode}: exit 1 and one line`, async () => {
      const ws = new Workspace();
      const r = runCli(
        ["add", "remote", "--tools-only", "--url", await fake(mode), "--timeout", "5"],
        {
          cwd: ws.dir,
        },
      );
      assert.equal(r.code, 1, r.stderr);
      assert.equal(r.stderr.trimEnd().split("\n").length, 1, r.stderr);
      assert.match(r.stderr, message);
    });
  }

  it("connection refused: exit 1", async () => {
    const port = await freePort();
    // The port is held (bound, not listening) for the whole test: nothing else can take it.
    await assert.rejects(
      new Promise((resolve, reject) => {
        const other = createNetServer().once("error", reject);
        other.listen(port, "127.0.0.1", () => other.close(resolve));
      }),
      { code: "EADDRINUSE" },
    );
    const r = runCli(["add", "remote", "--tools-only", "--url", `http://127.0.0.1:${port}/mcp`], {
      cwd: new Workspace().dir,
    });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^contractpin: server remote: connection refused\n$/);
  });

  it("a hang over HTTP: the timeout is honoured", async () => {
    const ws = new Workspace();
    const started = Date.now();
    const r = runCli(
      ["add", "remote", "--tools-only", "--url", await fake("hang"), "--timeout", "1"],
      {
        cwd: ws.dir,
      },
    );
    assert.equal(r.code, 1);
    assert.match(r.stderr, /timed out after 1 s/);
    // Twice the 4.3 s measured on a loaded machine; the default timeout is 30 s.
    assert.ok(Date.now() - started < 9000, `took ${Date.now() - started} ms`);
  });

  it("a certificate that is not trusted: exit 1, a TLS error", async () => {
    const ws = new Workspace();
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-subj",
        "/CN=localhost",
        "-days",
        "1",
        "-keyout",
        ws.path("key.pem"),
        "-out",
        ws.path("cert.pem"),
      ],
      { stdio: "ignore" },
    );
    const server = await startFakeHttp("tls", undefined, {
      FAKE_TLS_KEY: ws.path("key.pem"),
      FAKE_TLS_CERT: ws.path("cert.pem"),
    });
    servers.push(server);
    const r = runCli(
      ["add", "remote", "--tools-only", "--url", server.url.replace("http:", "https:")],
      {
        cwd: ws.dir,
      },
    );
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /server remote: TLS error: (DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|ERR_TLS_CERT_ALTNAME_INVALID)/,
    );
  });
});

describe("many servers", () => {
  it("a hung server does not delay the others past its own deadline", () => {
    const ws = new Workspace();
    fakeStdioLock(ws, "hang", "hung");
    const lock = ws.lockJson();
    for (const name of ["a", "b", "c"]) {
      lock.servers[name] = {
        ...lock.servers["hung"]!,
        command: [process.execPath, SERVERS.fakeStdio, "ok"],
      };
    }
    ws.write("contractpin.lock", JSON.stringify(lock));
    const started = Date.now();
    const r = runCli(["verify", "--timeout", "2"], { cwd: ws.dir });
    const elapsed = (Date.now() - started) / 1000;
    assert.equal(r.code, 1);
    assert.match(r.stdout, /^a {2}ok/m);
    assert.match(r.stdout, /^hung {2}UNREACHABLE {2}tools\/list page 1: timed out after 2 s/m);
    assert.match(r.stdout, /FAIL: 1 unreachable, 3 ok of 4 servers/);
    // Twice the 4.6 s measured on a loaded machine; the default timeout is 30 s.
    assert.ok(elapsed < 10, `took ${elapsed} s`);
    // Without a TTY: one plain progress line per server, the hung one last,
    // timed on contractpin's own clock: not before its deadline.
    const progress = r.stderr.trimEnd().split("\n");
    assert.equal(progress.length, 4, r.stderr);
    const hung = /^\[4\/4\] hung: UNREACHABLE \((\d+\.\d\d) s\)$/.exec(progress[3]!);
    assert.ok(hung, r.stderr);
    assert.ok(Number(hung[1]) >= 2 && Number(hung[1]) < 6, r.stderr);
  });
});

describe("found in review", () => {
  it("garbage in answer to the version probe: exit 1 promptly, no second server left running", async () => {
    const ws = new Workspace();
    fakeStdioLock(ws, "garbage-on-discover");
    const run = startCli(["verify", "--timeout", "10"], { cwd: ws.dir });
    const started = Date.now();
    const r = await run.done;
    assert.ok(Date.now() - started < 6000, `took ${Date.now() - started} ms`);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(
      r.stdout,
      /fake {2}UNREACHABLE {2}the server sent a message that is not strict JSON/,
    );
    assert.ok(await ended(Number(ws.read("state.pid"))));
  });

  it("a helper that keeps the server's stdout open does not hold contractpin", async () => {
    const ws = new Workspace();
    const started = Date.now();
    const r = addFake(ws, "daemon+ok", "--timeout", "5");
    const elapsed = Date.now() - started;
    try {
      process.kill(Number(ws.read("state.daemon")), "SIGKILL");
    } catch {
      // already gone
    }
    assert.equal(r.code, 0, r.stderr);
    assert.ok(elapsed < 8000, `took ${elapsed} ms`);
  });

  it("--timeout with fractions of a millisecond, or too large", () => {
    const ws = new Workspace();
    fakeStdioLock(ws, "ok");
    const fine = runCli(["verify", "--timeout", "1.005"], { cwd: ws.dir });
    assert.equal(fine.code, 0, fine.stdout + fine.stderr);
    const tiny = runCli(["verify", "--timeout", "0.0001"], { cwd: ws.dir });
    assert.equal(tiny.code, 1);
    assert.match(tiny.stdout, /timed out after 0\.001 s/);
    const huge = runCli(["verify", "--timeout", "5000000"], { cwd: ws.dir });
    assert.equal(huge.code, 2);
    assert.match(huge.stderr, /--timeout takes a positive number of seconds/);
  });

  it("a header whose expanded value has a line break: exit 1, and the value is never shown", async () => {
    const ws = new Workspace();
    const url = (await startFakeHttpOnce()).url;
    assert.equal(
      runCli(
        [
          "add",
          "remote",
          "--tools-only",
          "--url",
          url,
          "--header",
          "Authorization: Bearer ${TOKEN}",
        ],
        {
          cwd: ws.dir,
          env: { TOKEN: "ok" },
        },
      ).code,
      0,
    );
    const r = runCli(["verify"], { cwd: ws.dir, env: { TOKEN: "sk-live-SUPERSECRET\nX" } });
    assert.equal(r.code, 1);
    assert.match(r.stdout, /header Authorization has a line break or NUL in its value/);
    assert.ok(!r.stdout.includes("SUPERSECRET") && !r.stderr.includes("SUPERSECRET"));
  });

  it("a reference in the URL's port is kept and expanded when reading", async () => {
    const ws = new Workspace();
    const url = new URL((await startFakeHttpOnce()).url);
    const template = `http://127.0.0.1:\${FAKE_PORT}${url.pathname}`;
    const r = runCli(["add", "remote", "--tools-only", "--url", template], {
      cwd: ws.dir,
      env: { FAKE_PORT: url.port },
    });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(ws.lockJson().servers["remote"]!["url"], template);
    assert.equal(runCli(["verify"], { cwd: ws.dir, env: { FAKE_PORT: url.port } }).code, 0);
  });

  it("a closed pipe on stdout (digest | head): no crash, no stack trace", () => {
    const big = new Workspace();
    big.dump(
      "big.json",
      Array.from({ length: 3000 }, (_, i) => ({ name: `t${i}` })),
    );
    const r = spawnSync(
      "bash",
      [
        "-c",
        `"${process.execPath}" "${CLI}" digest --json big.json | head -c 10 >/dev/null; echo "\${PIPESTATUS[0]}" >&2`,
      ],
      {
        cwd: big.dir,
        encoding: "utf8",
      },
    );
    assert.doesNotMatch(r.stderr, /Error|EPIPE|at /);
    assert.equal(r.stderr.trim(), "0");
  });
});

let fakeHttpOnce: Running | undefined;
async function startFakeHttpOnce(): Promise<Running> {
  fakeHttpOnce ??= await startFakeHttp("ok");
  return fakeHttpOnce;
}
after(async () => {
  await fakeHttpOnce?.stop();
});
