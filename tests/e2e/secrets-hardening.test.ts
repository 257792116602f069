// Issue 9, "No secret echoed, no secret written": every value contractpin
// expands from the environment for a server is shown as its ${NAME} in
// everything it prints; an empty variable fails like an unset one; the
// credential scan refuses more literals; `verify --allow-env` narrows what a
// lock may reference. Through the built CLI.
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { after, describe, it } from "node:test";
import { runCli, type CliResult } from "../helpers/cli.js";
import { SERVERS } from "../helpers/servers.js";
import { Workspace } from "../helpers/workspace.js";

const FIXTURES = new URL("../fixtures/servers/", import.meta.url);
const SECRETS_STDIO = fileURLToPath(new URL("secrets-stdio.mjs", FIXTURES));
const SECRETS_HTTP = fileURLToPath(new URL("secrets-http.mjs", FIXTURES));
const TOOLS = JSON.parse(readFileSync(new URL("tools.json", FIXTURES), "utf8"));

// Shaped like a real key, and unlike anything contractpin prints on its own.
const KEY = "sk-live-Qm7ZrX4pL9vT2wK8nB5cD1";

const workspaces: Workspace[] = [];
const children: ChildProcess[] = [];
after(() => {
  for (const child of children) child.kill("SIGKILL");
  for (const ws of workspaces) rmSync(ws.dir, { recursive: true, force: true });
});

function workspace(): Workspace {
  const ws = new Workspace();
  workspaces.push(ws);
  return ws;
}

/** A lock pinning the fixture tools for one server defined by `source`, written without reading it. */
function lockWith(ws: Workspace, name: string, source: Record<string, unknown>): void {
  ws.dump("tools.json", TOOLS);
  const add = runCli(["add", name, "--file", "tools.json"], { cwd: ws.dir });
  assert.equal(add.code, 0, add.stderr);
  const lock = ws.lockJson();
  const { path: _path, transport: _transport, ...digests } = lock.servers[name]!;
  lock.servers[name] = { ...digests, ...source };
  ws.write("contractpin.lock", JSON.stringify(lock, null, 2));
}

/** Asserts that `text` never shows `secret` in any spelling and does show `reference`. */
function hidden(r: CliResult, secret: string, reference: string): void {
  const all = r.stdout + r.stderr;
  for (const form of [secret, encodeURIComponent(secret), secret.slice(0, 12), secret.slice(-12)]) {
    assert.ok(!all.includes(form), `'${form}' shown in:\n${all}`);
  }
  assert.ok(all.includes(reference), `${reference} not shown in:\n${all}`);
}

/** Starts the 401 fixture; its URL. */
async function start401(): Promise<string> {
  const child = spawn(process.execPath, [SECRETS_HTTP], { stdio: ["ignore", "pipe", "inherit"] });
  children.push(child);
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.once("data", (d: Buffer) =>
      resolve(Number(/listening on (\d+)/.exec(d.toString())![1])),
    );
    child.once("exit", () => reject(new Error("secrets-http.mjs exited")));
  });
  return `http://127.0.0.1:${port}/mcp`;
}

describe("a value expanded from the environment is never shown", () => {
  it("a stdio server that echoes its env key to stderr and exits 1: verify, verify --json, add", () => {
    const ws = workspace();
    const source = {
      transport: "stdio",
      command: [process.execPath, SECRETS_STDIO, "stderr-exit"],
      env: { SECRET_KEY: "${SECRET_KEY}" },
    };
    lockWith(ws, "echo", source);
    const env = { SECRET_KEY: KEY };
    const text = runCli(["verify"], { cwd: ws.dir, env });
    assert.equal(text.code, 1, text.stderr);
    assert.match(text.stdout, /echo {2}UNREACHABLE/);
    assert.match(text.stdout, /\| starting with SECRET_KEY=\$\{SECRET_KEY\}/);
    assert.match(text.stdout, /\| fatal: the key \$\{SECRET_KEY\} was rejected/);
    hidden(text, KEY, "${SECRET_KEY}");
    const json = runCli(["verify", "--json"], { cwd: ws.dir, env });
    assert.equal(json.code, 1);
    const report = JSON.parse(json.stdout);
    assert.equal(report.servers[0].status, "unreachable");
    assert.ok(
      report.servers[0].detail.some((l: string) => l.includes("GET /auth?key=${SECRET_KEY}")),
    );
    hidden(json, KEY, "${SECRET_KEY}");

    const add = runCli(
      ["add", "again", "--env", "SECRET_KEY=${SECRET_KEY}", "--", ...source.command],
      { cwd: ws.dir, env },
    );
    assert.equal(add.code, 1, add.stderr);
    assert.match(add.stderr, /^contractpin: server again: /);
    hidden(add, KEY, "${SECRET_KEY}");
  });

  it("a stdio server whose JSON-RPC error quotes the key from its arguments", () => {
    const ws = workspace();
    lockWith(ws, "rpc", {
      transport: "stdio",
      command: [process.execPath, SECRETS_STDIO, "rpc-error", "${ARG_KEY}"],
    });
    const env = { ARG_KEY: KEY };
    const text = runCli(["verify"], { cwd: ws.dir, env });
    assert.equal(text.code, 1, text.stderr);
    assert.match(
      text.stdout,
      /JSON-RPC error -32001: invalid API key \$\{ARG_KEY\} \(expected a live key\)/,
    );
    hidden(text, KEY, "${ARG_KEY}");
    const json = runCli(["verify", "--json"], { cwd: ws.dir, env });
    assert.equal(json.code, 1);
    assert.match(JSON.parse(json.stdout).servers[0].error, /invalid API key \$\{ARG_KEY\}/);
    hidden(json, KEY, "${ARG_KEY}");
  });

  it("an HTTP server whose 401 status text quotes the header's token and the URL's key", async () => {
    const ws = workspace();
    const url = await start401();
    // A URL key with characters that a URL percent-encodes.
    const urlKey = "Zq8 Lm/x+Ré!Tk4";
    lockWith(ws, "remote", {
      transport: "http",
      url: `${url}?k=\${URL_KEY}`,
      headers: { Authorization: "Bearer ${REMOTE_TOKEN}" },
    });
    const env = { REMOTE_TOKEN: KEY, URL_KEY: urlKey };
    const text = runCli(["verify", "--timeout", "10"], { cwd: ws.dir, env });
    assert.equal(text.code, 1, text.stderr);
    assert.match(
      text.stdout,
      /HTTP 401 Unauthorized: Bearer \$\{REMOTE_TOKEN\} for \/mcp\?k=\$\{URL_KEY\}/,
    );
    hidden(text, KEY, "${REMOTE_TOKEN}");
    assert.ok(!text.stdout.includes(encodeURI(urlKey)), text.stdout);
    const json = runCli(["verify", "--json", "--timeout", "10"], { cwd: ws.dir, env });
    assert.equal(json.code, 1);
    assert.match(JSON.parse(json.stdout).servers[0].error, /Bearer \$\{REMOTE_TOKEN\}/);
    hidden(json, KEY, "${REMOTE_TOKEN}");
    assert.ok(!json.stdout.includes(encodeURI(urlKey)), json.stdout);
  });
});

describe("a variable that is set but empty", () => {
  it("fails the server naming the variable, like an unset one, and the server is never started", () => {
    const ws = workspace();
    const marker = ws.path("started");
    lockWith(ws, "svc", {
      transport: "stdio",
      command: [process.execPath, SECRETS_STDIO, "marker", marker],
      env: { API_TOKEN: "${API_TOKEN}" },
    });
    const empty = runCli(["verify"], { cwd: ws.dir, env: { API_TOKEN: "" } });
    assert.equal(empty.code, 1, empty.stderr);
    assert.match(
      empty.stdout,
      /svc {2}UNREACHABLE {2}env API_TOKEN refers to \$\{API_TOKEN\}, but API_TOKEN is empty/,
    );
    assert.equal(existsSync(marker), false);
    const unset = runCli(["verify"], { cwd: ws.dir, env: { API_TOKEN: undefined } });
    assert.equal(unset.code, 1);
    assert.match(unset.stdout, /API_TOKEN is not set/);
    // Set, it reads (the marker shows the server could start at all).
    const set = runCli(["verify"], { cwd: ws.dir, env: { API_TOKEN: "t0ken-value" } });
    assert.equal(set.code, 0, set.stdout + set.stderr);
    assert.equal(existsSync(marker), true);
  });

  it("an empty header variable: add fails (exit 1) naming it, and sends no request", async () => {
    const ws = workspace();
    const url = await start401();
    const r = runCli(
      ["add", "remote", "--url", url, "--header", "Authorization: Bearer ${REMOTE_TOKEN}"],
      { cwd: ws.dir, env: { REMOTE_TOKEN: "" } },
    );
    assert.equal(r.code, 1, r.stderr);
    assert.match(
      r.stderr,
      /^contractpin: server remote: header Authorization refers to \$\{REMOTE_TOKEN\}, but REMOTE_TOKEN is empty/,
    );
    assert.doesNotMatch(r.stderr, /HTTP 401/);
    assert.equal(existsSync(ws.path("contractpin.lock")), false);
  });
});

describe("verify --allow-env", () => {
  function markerLock(ws: Workspace) {
    const marker = ws.path("started");
    lockWith(ws, "svc", {
      transport: "stdio",
      command: [process.execPath, SECRETS_STDIO, "marker", marker],
      env: { DEPLOY_KEY: "${DEPLOY_KEY}" },
    });
    return marker;
  }
  const env = { DEPLOY_KEY: "dk-value-1234", SEARCH_TOKEN: "st-value-5678" };

  it("a reference not in the list fails that server (exit 1) before it is started", () => {
    const ws = workspace();
    const marker = markerLock(ws);
    const r = runCli(["verify", "--allow-env", "SEARCH_TOKEN,GITHUB_TOKEN"], { cwd: ws.dir, env });
    assert.equal(r.code, 1, r.stderr);
    assert.match(
      r.stdout,
      /svc {2}UNREACHABLE {2}server svc refers to \$\{DEPLOY_KEY\}, which the allowed variables \(--allow-env or CONTRACTPIN_ALLOW_ENV: SEARCH_TOKEN,GITHUB_TOKEN\) do not include; it was not started/,
    );
    assert.equal(existsSync(marker), false);
    const json = runCli(["verify", "--json", "--allow-env", "SEARCH_TOKEN"], { cwd: ws.dir, env });
    assert.equal(json.code, 1);
    assert.match(JSON.parse(json.stdout).servers[0].error, /\$\{DEPLOY_KEY\}/);
    assert.equal(existsSync(marker), false);
  });

  it("CONTRACTPIN_ALLOW_ENV does the same; set but empty, it allows no variable", () => {
    const ws = workspace();
    const marker = markerLock(ws);
    for (const list of ["SEARCH_TOKEN", ""]) {
      const r = runCli(["verify"], { cwd: ws.dir, env: { ...env, CONTRACTPIN_ALLOW_ENV: list } });
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stdout, /server svc refers to \$\{DEPLOY_KEY\}/);
      assert.equal(existsSync(marker), false);
    }
  });

  it("a listed reference is read as usual; the flag replaces the variable; repeatable", () => {
    const ws = workspace();
    const marker = markerLock(ws);
    const r = runCli(["verify", "--allow-env", "SEARCH_TOKEN", "--allow-env", "DEPLOY_KEY"], {
      cwd: ws.dir,
      env: { ...env, CONTRACTPIN_ALLOW_ENV: "NOTHING_ELSE" },
    });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.equal(existsSync(marker), true);
  });

  it("a name that is not a variable name is exit 2, without echoing it", () => {
    const ws = workspace();
    markerLock(ws);
    const r = runCli(["verify", "--allow-env", "OK,TOKEN=hunter2hunter2"], { cwd: ws.dir, env });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^contractpin: --allow-env takes variable names .*; entry 2 is not one/);
    assert.ok(!r.stderr.includes("hunter2"));
  });
});

describe("add refuses literal credentials the scan used to miss", () => {
  for (const [label, args, fix] of [
    [
      "docker -e DB_PASSWORD=…",
      ["-e", "DB_PASSWORD=hunter2hunter2"],
      "'DB_PASSWORD=${DB_PASSWORD}'",
    ],
    [
      "-e POSTGRES_PASSWORD=…",
      ["-e", "POSTGRES_PASSWORD=hunter2hunter2"],
      "'POSTGRES_PASSWORD=${POSTGRES_PASSWORD}'",
    ],
    [
      "--env=SLACK_BOT_TOKEN=…",
      ["--env=SLACK_BOT_TOKEN=hunter2hunter2"],
      "'SLACK_BOT_TOKEN=${SLACK_BOT_TOKEN}'",
    ],
    ["--db-pw …", ["--db-pw", "hunter2hunter2"], "'${API_KEY}'"],
  ] as const) {
    it(`${label}: exit 2 with the fix, the value never shown`, () => {
      const ws = workspace();
      const r = runCli(["add", "db", "--", "docker", "run", ...args, "postgres-mcp:1.0"], {
        cwd: ws.dir,
      });
      assert.equal(r.code, 2, r.stderr);
      assert.match(
        r.stderr,
        /^contractpin: server db: the command's args\[\d\].* looks like a credential/,
      );
      assert.ok(r.stderr.includes(fix), r.stderr);
      assert.ok(!r.stderr.includes("hunter2"));
      assert.equal(existsSync(ws.path("contractpin.lock")), false);
    });
  }

  it("a vendor-prefixed key in --env, even under a harmless name: exit 2", () => {
    const ws = workspace();
    // A DigitalOcean token: lower-case hex after the prefix, which the shape rules used to miss.
    const token = `dop_v1_${"3f9a0c7e5b1d2468".repeat(4)}`;
    const r = runCli(["add", "s", "--env", `DO=${token}`, "--", process.execPath, "s.js"], {
      cwd: ws.dir,
    });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /env DO looks like a credential.*--env DO='\$\{DO\}'/);
    assert.ok(!r.stderr.includes(token));
  });

  it("harmless literals still pass: DEBUG=1, LOG_LEVEL=info, NODE_ENV=production, PORT=3000, a path, --verbose", () => {
    const ws = workspace();
    const r = runCli(
      [
        "add",
        "fake",
        ...[
          "--env",
          "DEBUG=1",
          "--env",
          "LOG_LEVEL=info",
          "--env",
          "NODE_ENV=production",
          "--env",
          "PORT=3000",
        ],
        "--",
        process.execPath,
        SERVERS.fakeStdio,
        "ok",
      ],
      { cwd: ws.dir },
    );
    assert.equal(r.code, 0, r.stderr);
    const args = runCli(
      [
        "add",
        "args",
        "--",
        process.execPath,
        SERVERS.fakeStdio,
        "ok",
        "--verbose",
        "-e",
        "DEBUG=1",
        "/usr/local/share/data",
      ],
      { cwd: ws.dir },
    );
    // fake-stdio-server.mjs takes its mode from argv[2]: the rest is ignored by it.
    assert.equal(args.code, 0, args.stderr);
    assert.deepEqual(ws.lockJson().servers["fake"]!["env"], {
      DEBUG: "1",
      LOG_LEVEL: "info",
      NODE_ENV: "production",
      PORT: "3000",
    });
  });
});

describe("add --header with a literal credential follows the rule of --env", () => {
  it("refused (exit 2) with the exact fix keeping the Bearer prefix; nothing read or written", async () => {
    const ws = workspace();
    const url = await start401();
    const r = runCli(["add", "search", "--url", url, "--header", `Authorization: Bearer ${KEY}`], {
      cwd: ws.dir,
    });
    assert.equal(r.code, 2, r.stderr);
    assert.equal(
      r.stderr,
      "contractpin: server search: header Authorization holds a literal credential, which is never " +
        "written to the lock; pass it as a reference to an environment variable instead, e.g. " +
        "--header 'Authorization: Bearer ${SEARCH_AUTHORIZATION}' and set SEARCH_AUTHORIZATION when reading the server\n",
    );
    assert.equal(existsSync(ws.path("contractpin.lock")), false);
    // The fix works as given.
    const fixed = runCli(
      ["add", "search", "--url", url, "--header", "Authorization: Bearer ${SEARCH_AUTHORIZATION}"],
      { cwd: ws.dir, env: { SEARCH_AUTHORIZATION: KEY } },
    );
    assert.equal(fixed.code, 1); // the fixture refuses everyone: the point is the refusal is gone
    assert.match(fixed.stderr, /HTTP 401/);
    hidden(fixed, KEY, "${SEARCH_AUTHORIZATION}");
  });

  it("a key-named header or a mixed template is refused too", () => {
    const ws = workspace();
    for (const header of [
      "X-API-Key: 12345678",
      "Cookie: theme=${THEME}; session=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln",
    ]) {
      const r = runCli(["add", "x", "--url", "http://127.0.0.1:9/mcp", "--header", header], {
        cwd: ws.dir,
        env: { THEME: "dark" },
      });
      assert.equal(r.code, 2, header);
      assert.match(r.stderr, /holds a literal credential/);
      assert.ok(!r.stderr.includes("12345678") && !r.stderr.includes("eyJ"), r.stderr);
    }
  });

  it("a literal that is not a credential (X-Api-Version: 2) is used for the read and dropped, as before", async () => {
    const ws = workspace();
    const url = await start401();
    const r = runCli(["add", "x", "--url", url, "--header", "X-Api-Version: 2"], { cwd: ws.dir });
    assert.equal(r.code, 1); // read (and refused by the fixture), not refused by contractpin
    assert.match(r.stderr, /warning: server x: header X-Api-Version is not written to the lock/);
    assert.match(r.stderr, /HTTP 401 Unauthorized: no credentials/);
  });

  it("init gives a config's literal header the same reference add proposes", () => {
    const ws = workspace();
    ws.write(
      ".mcp.json",
      JSON.stringify({
        mcpServers: {
          search: {
            type: "http",
            url: "http://127.0.0.1:9/mcp",
            headers: { Authorization: `Bearer ${KEY}` },
          },
        },
      }),
    );
    const r = runCli(["init", "--timeout", "5"], { cwd: ws.dir });
    assert.equal(r.code, 1); // nothing listens on port 9
    assert.ok(
      r.stderr.includes(
        "the lock sends 'Authorization: Bearer ${SEARCH_AUTHORIZATION}' instead (as --header 'Authorization: Bearer ${SEARCH_AUTHORIZATION}' would)",
      ),
      r.stderr,
    );
    hidden(r, KEY, "${SEARCH_AUTHORIZATION}");
  });
});
