// More of the guard in front of a server behind OAuth (beside
// oauth-upstream.test.ts): under CI=true, a server that needs a login and
// whose lock entry has no auth member is refused with the line that names
// the auth member, as verify says it; and a step-up demanded through the
// guard's HTTP listener fails closed with the login --scope line. Against
// the loopback OAuth fixture, through the built CLI.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { tempDir } from "../helpers/cleanup.js";
import { runCli, startCli } from "../helpers/cli.js";
import {
  issuedTokens,
  loginOnTerminal,
  startOAuthFixture,
  tokenGrants,
  type OAuthFixture,
} from "../helpers/oauth.js";
import { assert, RawClient } from "./guard-harness.js";

/** A fixture, a stored login and a lock pinning it as `linear` (no auth member), in a new folder. */
async function pinnedBehindLogin(fixtureEnv: Record<string, string> = {}) {
  const dir = tempDir("contractpin-guard-oauth-");
  const fx = await startOAuthFixture(dir, fixtureEnv);
  const env = { CONTRACTPIN_CONFIG_DIR: join(dir, "config"), CI: "" };
  const login = loginOnTerminal(["--url", fx.url, "--no-browser"], env, dir);
  assert.equal(login.code, 0, login.data);
  const add = runCli(["add", "linear", "--url", fx.url], { cwd: dir, env });
  assert.equal(add.code, 0, add.stderr);
  return { dir, fx, env, lock: join(dir, "contractpin.lock"), shown: [login.data, add.stdout] };
}

function noTokenIn(fx: OAuthFixture, texts: string[]): void {
  for (const t of issuedTokens(fx))
    assert.ok(!texts.some((text) => text.includes(t)), "a token was shown");
}

describe("the guard under CI=true, for a server that needs a login and has no auth member", () => {
  let fx: OAuthFixture;
  let dir: string;
  let lock: string;
  let shown: string[];
  before(async () => ({ fx, dir, lock, shown } = await pinnedBehindLogin()));

  it("fails closed in one line naming the lock's auth member; errors to the client, exit 1", async () => {
    const from = fx.report().length;
    // No stored login where the guard runs (a CI runner).
    const client = new RawClient(["linear", "--lock", lock], {
      CONTRACTPIN_CONFIG_DIR: join(dir, "ci-config"),
      CI: "true",
    });
    const line =
      "server linear: the server needs an OAuth login: run 'contractpin login linear' " +
      `(for a server not in the lock yet: 'contractpin login --url ${fx.url}'); ` +
      "under CI, give the lock an auth member instead (contractpin add --help: --auth)";
    const init = await client.request(0, "initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "raw", version: "1" },
    });
    assert.equal(init.error.code, -32603);
    assert.equal(init.error.message, `contractpin guard: ${line}`);
    assert.equal((await client.request(1, "tools/list", {})).error.code, -32603);
    assert.equal((await client.close()).code, 1);
    assert.equal(client.stderr, `contractpin: guard: ${line}\n`);
    // stdout is the MCP channel: the two JSON-RPC errors and nothing else.
    assert.equal(client.lines.length, 2);
    for (const l of client.lines) assert.equal(JSON.parse(l).jsonrpc, "2.0");
    const sent = fx
      .report()
      .slice(from)
      .filter((e) => e.path === "/mcp");
    assert.deepEqual(
      sent.map((e) => e.authorization),
      [null],
    );
    assert.equal(tokenGrants(fx).length, 1, "no token was asked for");
    noTokenIn(fx, [...shown, client.stderr, ...client.lines]);
  });
});

/** Starts `contractpin guard linear --listen 127.0.0.1:0` and reads its URL from the first stderr line. */
async function listening(lock: string, env: Record<string, string>) {
  const { child, done } = startCli(["guard", "linear", "--lock", lock, "--listen", "127.0.0.1:0"], {
    env,
  });
  let stderr = "";
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on("data", (d: Buffer) => {
      stderr += d.toString();
      const m = /^contractpin: guard: listening on (http:\/\/\S+)\n/.exec(stderr);
      if (m !== null) resolve(m[1]!);
    });
    child.once("exit", () => reject(new Error(`the guard exited; stderr: ${stderr}`)));
  });
  return { url, child, done };
}

describe("a step-up demanded through the guard's HTTP listener (a stored login)", () => {
  it("fails closed on the call with the login --scope line; nothing asked for; SIGTERM ends it (exit 2)", async () => {
    const { fx, env, lock, shown } = await pinnedBehindLogin({
      STEP_UP_SCOPE: "mcp:admin",
      STEP_UP_METHOD: "tools/call",
    });
    const guard = await listening(lock, env);
    const client = new Client({ name: "listen-test", version: "1.0.0" }, { capabilities: {} });
    const line =
      "server linear: the server needs the scope 'mcp:tools mcp:admin', which the stored " +
      "login lacks: run: contractpin login linear --scope 'mcp:tools mcp:admin' " +
      `(for a server not in the lock yet: contractpin login --url ${fx.url} --scope 'mcp:tools mcp:admin')`;
    const grants = tokenGrants(fx).length;
    const errors: string[] = [];
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(guard.url)));
      assert.equal((await client.listTools()).tools.length, 4);
      for (const attempt of [
        () => client.callTool({ name: "alpha", arguments: {} }),
        () => client.listTools(),
      ]) {
        await assert.rejects(attempt(), (err: Error & { code?: number }) => {
          errors.push(err.message);
          assert.equal(err.code, -32603);
          assert.equal(err.message, `contractpin guard: ${line}`);
          return true;
        });
      }
    } finally {
      await client.close();
    }
    // The call reached the server once, with the stored token; no token was asked for.
    const calls = fx
      .report()
      .filter((e) => e.path === "/mcp" && /"tools\/call"/.test(String(e.body)));
    assert.equal(calls.length, 1);
    assert.equal(calls[0]!.authorization, `Bearer ${issuedTokens(fx)[0]}`);
    assert.equal(tokenGrants(fx).length, grants);
    guard.child.kill("SIGTERM");
    const r = await guard.done;
    assert.equal(r.code, 2);
    assert.equal(r.stdout, "");
    assert.equal(
      r.stderr,
      `contractpin: guard: listening on ${guard.url}\ncontractpin: guard: ${line}\n` +
        "contractpin: interrupted by SIGTERM\n",
    );
    noTokenIn(fx, [...shown, r.stdout, r.stderr, ...errors]);
  });
});
