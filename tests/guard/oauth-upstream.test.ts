// contractpin guard in front of a server pinned over HTTP that authorizes
// with OAuth (issue 15): the official client over stdio through the guard,
// against the loopback OAuth fixture. The guard uses verify's credential (a
// stored login, or the lock's auth member), refreshes a revoked token,
// steps a client_credentials token up once, and without a login fails closed
// in one line: the client gets errors, never an unguarded connection.
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { tempDir } from "../helpers/cleanup.js";
import { CLI, runCli } from "../helpers/cli.js";
import {
  addAuth,
  issuedTokens,
  loginOnTerminal,
  revokeTokens,
  startOAuthFixture,
  tokenGrants,
  type OAuthFixture,
} from "../helpers/oauth.js";
import { assert, officialClient, RawClient } from "./guard-harness.js";

const SECRET = "cc-Secret-Z7v3Nb5Kc1Xp8Rw";

const guarded = (lock: string, env: Record<string, string>) =>
  officialClient(
    [process.execPath, CLI, "guard", "linear", "--lock", lock],
    { capabilities: {} },
    () => undefined,
    env,
  );

/** Every request the MCP server (not the authorization server) received from index `from` on. */
const mcpRequests = (fx: OAuthFixture, from: number) =>
  fx
    .report()
    .slice(from)
    .filter((e) => e.path === "/mcp");

describe("the guard in front of a server behind a stored OAuth login", () => {
  let fx: OAuthFixture;
  let dir: string;
  let lock: string;
  let env: Record<string, string>;
  const stderrs: string[] = [];
  before(async () => {
    dir = tempDir("contractpin-guard-oauth-");
    fx = await startOAuthFixture(dir);
    lock = join(dir, "contractpin.lock");
    env = { CONTRACTPIN_CONFIG_DIR: join(dir, "config"), CI: "" };
    const login = loginOnTerminal(["--url", fx.url, "--no-browser"], env, dir);
    assert.equal(login.code, 0, login.data);
    const add = runCli(["add", "linear", "--url", fx.url], { cwd: dir, env });
    assert.equal(add.code, 0, add.stderr);
  });
  after(() => {
    for (const text of stderrs)
      for (const t of issuedTokens(fx)) assert.ok(!text.includes(t), "a token was shown");
  });

  it("relays with the stored token, sent to the pinned server only, and refreshes it once revoked", async () => {
    const from = fx.report().length;
    const { client, stderr } = await guarded(lock, env);
    try {
      const first = await client.listTools();
      assert.deepEqual(
        first.tools.map((t) => t.name),
        ["alpha", "beta", "gamma", "delta"],
      );
      const [access] = issuedTokens(fx);
      const sent = mcpRequests(fx, from);
      assert.ok(sent.some((e) => e.authorization === `Bearer ${access}`));
      assert.ok(sent.every((e) => String(e.port) === new URL(fx.url).port));
      // Revoked, not expired: the server answers 401; the guard refreshes once and goes on.
      await revokeTokens(fx);
      const again = await client.listTools();
      assert.deepEqual(again, first);
      assert.deepEqual(
        tokenGrants(fx).map((g) => g.grant_type),
        ["authorization_code", "refresh_token"],
      );
      // The authorization server never saw an access token.
      const tokens = issuedTokens(fx);
      assert.ok(
        fx
          .report()
          .filter((e) => e.path !== "/mcp")
          .every((e) => !tokens.some((t) => String(e.authorization).includes(t))),
      );
      assert.equal(stderr(), "");
    } finally {
      stderrs.push(stderr());
      await client.close();
    }
  });

  it("without a login: one line naming 'contractpin login NAME', errors to the client, exit 1", async () => {
    const from = fx.report().length;
    const client = new RawClient(["linear", "--lock", lock], {
      CONTRACTPIN_CONFIG_DIR: join(dir, "no-login"),
      CI: "",
    });
    const init = await client.request(0, "initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "raw", version: "1" },
    });
    assert.equal(init.error.code, -32603);
    assert.match(
      init.error.message,
      /^contractpin guard: server linear: the server needs an OAuth login: run 'contractpin login linear' /,
    );
    const list = await client.request(1, "tools/list", {});
    assert.equal(list.error.code, -32603);
    assert.equal((await client.close()).code, 1);
    stderrs.push(client.stderr);
    assert.match(
      client.stderr,
      /^contractpin: guard: server linear: the server needs an OAuth login: run 'contractpin login linear' \(for a server not in the lock yet: 'contractpin login --url http:\/\/127\.0\.0\.1:\d+\/mcp'\)\n$/,
    );
    // stdout is the MCP channel: JSON-RPC responses and nothing else.
    assert.equal(client.lines.length, 2);
    for (const line of client.lines) assert.equal(JSON.parse(line).jsonrpc, "2.0");
    // Nothing reached the server but the one request that learnt it wants OAuth, without a token.
    const sent = mcpRequests(fx, from);
    assert.equal(sent.length, 1);
    assert.equal(sent[0]!.authorization, null);
  });
});

describe("the guard in front of a server that the lock's auth member authorizes (client_credentials, CI)", () => {
  it("gets a token, steps it up once on 403 insufficient_scope, and renews it once revoked", async () => {
    const dir = tempDir("contractpin-guard-oauth-");
    const fx = await startOAuthFixture(dir, {
      CC_CLIENT_ID: "ci-bot",
      CC_CLIENT_SECRET: SECRET,
      STEP_UP_SCOPE: "mcp:admin",
    });
    const env = { CI: "true", CC_SECRET: SECRET, CONTRACTPIN_CONFIG_DIR: join(dir, "config") };
    const add = runCli(
      addAuth(fx, "linear", "client_credentials", "ci-bot", ["--client-secret-env", "CC_SECRET"]),
      { cwd: dir, env },
    );
    assert.equal(add.code, 0, add.stderr);
    const grants = tokenGrants(fx).length;
    const { client, stderr } = await guarded(join(dir, "contractpin.lock"), env);
    try {
      const first = await client.listTools();
      assert.deepEqual(
        first.tools.map((t) => t.name),
        ["alpha", "beta", "gamma", "delta"],
      );
      await revokeTokens(fx);
      assert.deepEqual(await client.listTools(), first);
      // The renewed token keeps the scope the step-up added: no second step-up.
      assert.deepEqual(
        tokenGrants(fx)
          .slice(grants)
          .map((g) => [g.grant_type, g.scope]),
        [
          ["client_credentials", "mcp:tools"],
          ["client_credentials", "mcp:tools mcp:admin"],
          ["client_credentials", "mcp:tools mcp:admin"],
        ],
      );
      assert.equal(stderr(), "");
      for (const t of [...issuedTokens(fx), SECRET]) assert.ok(!stderr().includes(t));
    } finally {
      await client.close();
    }
  });
});

describe("the guard in front of a server whose tool demands a scope the stored login lacks", () => {
  it("fails closed on the call: one line naming login --scope, errors after it, exit 1", async () => {
    const dir = tempDir("contractpin-guard-oauth-");
    const fx = await startOAuthFixture(dir, {
      STEP_UP_SCOPE: "mcp:admin",
      STEP_UP_METHOD: "tools/call",
    });
    const env = { CONTRACTPIN_CONFIG_DIR: join(dir, "config"), CI: "" };
    assert.equal(loginOnTerminal(["--url", fx.url, "--no-browser"], env, dir).code, 0);
    assert.equal(runCli(["add", "linear", "--url", fx.url], { cwd: dir, env }).code, 0);
    const client = new RawClient(["linear", "--lock", join(dir, "contractpin.lock")], env);
    assert.equal((await client.initialize()).result.serverInfo.name, "oauth-fixture");
    assert.equal((await client.request(1, "tools/list")).result.tools.length, 4);
    const grants = tokenGrants(fx).length;
    const call = await client.request(2, "tools/call", { name: "alpha", arguments: {} });
    const line =
      "server linear: the server needs the scope 'mcp:tools mcp:admin', which the stored " +
      "login lacks: run: contractpin login linear --scope 'mcp:tools mcp:admin' (";
    assert.equal(call.error.code, -32603);
    assert.ok(call.error.message.startsWith(`contractpin guard: ${line}`), call.error.message);
    assert.equal((await client.request(3, "tools/list")).error.code, -32603);
    assert.equal((await client.close()).code, 1);
    assert.ok(client.stderr.startsWith(`contractpin: guard: ${line}`), client.stderr);
    assert.equal(client.stderr.split("\n").length, 2, client.stderr);
    // No token was asked for: a stored login cannot step up without a person.
    assert.equal(tokenGrants(fx).length, grants);
    for (const l of client.lines) assert.equal(JSON.parse(l).jsonrpc, "2.0");
    for (const t of issuedTokens(fx)) assert.ok(!(client.stderr + client.lines.join()).includes(t));
  });
});

describe("the guard in front of a server authorized by a refresh token from a variable", () => {
  it("writes each rotation to --oauth-state-out, and renews with the token it rotated", async () => {
    const dir = tempDir("contractpin-guard-oauth-");
    const seed = `rt-seed-${randomUUID()}`;
    const fx = await startOAuthFixture(dir, { RT_CLIENT_ID: "ci-public", RT_SEED: seed });
    const state = join(dir, "oauth-state.env");
    const config = join(dir, "config");
    const add = runCli(
      addAuth(fx, "linear", "refresh_token", "ci-public", [
        "--refresh-token-env",
        "MCP_REFRESH",
        "--oauth-state-out",
        state,
      ]),
      { cwd: dir, env: { CI: "true", MCP_REFRESH: seed, CONTRACTPIN_CONFIG_DIR: config } },
    );
    assert.equal(add.code, 0, add.stderr);
    const saved = () => readFileSync(state, "utf8").trim().slice("MCP_REFRESH=".length);
    const current = saved();
    const { client, stderr } = await officialClient(
      [process.execPath, CLI, "guard", "linear", "--oauth-state-out", state],
      { capabilities: {} },
      () => undefined,
      { CI: "true", MCP_REFRESH: current, CONTRACTPIN_CONFIG_DIR: config },
      dir,
    );
    try {
      const first = await client.listTools();
      const rotated = saved();
      assert.notEqual(rotated, current);
      await revokeTokens(fx);
      assert.deepEqual(await client.listTools(), first);
      // The second refresh presents the token the guard rotated, not the dead one it started with.
      assert.deepEqual(
        tokenGrants(fx)
          .slice(-2)
          .map((g) => [g.grant_type, g.refresh_token]),
        [
          ["refresh_token", current],
          ["refresh_token", rotated],
        ],
      );
      assert.equal(saved(), String(fx.report().findLast((e) => e.issued)?.refresh));
      assert.equal(stderr(), "");
      for (const t of [...issuedTokens(fx), seed]) assert.ok(!stderr().includes(t));
    } finally {
      await client.close();
    }
  });
});
