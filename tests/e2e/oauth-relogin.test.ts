// A second `contractpin login` to a server whose client was registered
// dynamically at the first one. Each login listens on a new free port, but an
// authorization server that checks redirect_uri exactly (the fixture's does,
// as many real ones do) knows only the redirect URI the client registered
// with: login listens on that port again, or, when it cannot be had,
// registers a new client and stores it in place of the old one. Through the
// built CLI against tests/fixtures/servers/oauth-server.mjs.
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { describe, it } from "node:test";
import { tempDir } from "../helpers/cleanup.js";
import { runCli } from "../helpers/cli.js";
import {
  assertNoTokenShown,
  everythingShown,
  loginOnTerminal,
  revokeTokens,
  startOAuthFixture,
  tokenGrants,
  type OAuthFixture,
} from "../helpers/oauth.js";

// Planted in the stored registration: it must never reach any request, nor any output.
const OLD_SECRET = "old-client-Secret-Q7v3Kd9Wn2";

interface StoredClient {
  client_id: string;
  client_secret?: string;
  redirect_uris?: string[];
}

async function setup(fixtureEnv: Record<string, string> = {}) {
  const dir = tempDir();
  const fx = await startOAuthFixture(dir, fixtureEnv);
  const env = { CONTRACTPIN_CONFIG_DIR: join(dir, "config"), CI: "" };
  const outputs: string[] = [];
  const credentials = join(dir, "config", "credentials.json");
  const login = (...extra: string[]) => {
    const r = loginOnTerminal(["--url", fx.url, "--no-browser", ...extra], env, dir);
    outputs.push(r.data);
    return r;
  };
  const run = (args: string[]) => {
    const r = runCli(args, { cwd: dir, env });
    outputs.push(r.stdout, r.stderr);
    return r;
  };
  const entry = () =>
    JSON.parse(readFileSync(credentials, "utf8")).resources[fx.url][fx.issuer] as {
      client: StoredClient;
      tokens: { access_token: string; refresh_token: string };
    };
  const plantSecret = () => {
    const all = JSON.parse(readFileSync(credentials, "utf8"));
    all.resources[fx.url][fx.issuer].client.client_secret = OLD_SECRET;
    writeFileSync(credentials, JSON.stringify(all), { mode: 0o600 });
  };
  return { dir, fx, outputs, login, run, entry, plantSecret };
}

const registrations = (fx: OAuthFixture) =>
  fx.report().filter((e) => e.path === "/register" && e.method === "POST");
const portOf = (uri: string) => Number(new URL(uri).port);

/** Holds `port` on 127.0.0.1 (as another program would) until closed. */
const occupy = (port: number) =>
  new Promise<Server>((resolve, reject) => {
    const s = createServer().once("error", reject);
    s.listen(port, "127.0.0.1", () => resolve(s));
  });

function nothingSecretShown(fx: OAuthFixture, dir: string, outputs: string[]): void {
  assertNoTokenShown(fx, everythingShown(dir, outputs), { also: [OLD_SECRET] });
}

describe("a second login with a dynamically registered client", () => {
  it("listens on the port the client registered, and the login succeeds (exit 0)", async () => {
    const { dir, fx, outputs, login, run, entry } = await setup();
    assert.equal(login().code, 0);
    const first = entry();
    const r = login();
    assert.equal(r.code, 0, r.data);
    assert.match(r.data, /logged in to .* \(authorization server /);
    assert.doesNotMatch(r.data, /Unregistered redirect_uri/);
    assert.equal(registrations(fx).length, 1, "the stored client was used again");
    assert.deepEqual(entry().client, first.client);
    assert.notEqual(entry().tokens.access_token, first.tokens.access_token);
    const authorize = fx.report().filter((e) => e.path === "/authorize");
    assert.equal(authorize.length, 2);
    assert.equal(run(["add", "linear", "--url", fx.url]).code, 0);
    nothingSecretShown(fx, dir, outputs);
  });

  it("the step-up advice works: login NAME --scope, after an earlier login", async () => {
    const { dir, fx, outputs, login, run } = await setup({ STEP_UP_SCOPE: "mcp:admin" });
    assert.equal(login().code, 0);
    const add = run(["add", "linear", "--url", fx.url]);
    assert.equal(add.code, 1, add.stderr);
    assert.match(add.stderr, /run: contractpin login linear --scope 'mcp:tools mcp:admin'/);
    const r = login("--scope", "mcp:tools mcp:admin");
    assert.equal(r.code, 0, r.data);
    assert.equal(registrations(fx).length, 1);
    assert.equal(run(["add", "linear", "--url", fx.url]).code, 0);
    nothingSecretShown(fx, dir, outputs);
  });

  it("that port taken: a new client is registered, without the old one's secret, and stored in its place", async () => {
    const { dir, fx, outputs, login, run, entry, plantSecret } = await setup();
    assert.equal(login().code, 0);
    plantSecret();
    const old = entry().client;
    const held = await occupy(portOf(old.redirect_uris![0]!));
    let r;
    try {
      r = login();
    } finally {
      held.close();
    }
    assert.equal(r.code, 0, r.data);
    assert.match(
      r.data,
      new RegExp(
        `on port ${portOf(old.redirect_uris![0]!)}, which is in use: registering a new client`,
      ),
    );
    assert.equal(registrations(fx).length, 2);
    const now = entry().client;
    assert.notEqual(now.client_id, old.client_id);
    assert.equal(now.client_secret, undefined);
    assert.notEqual(portOf(now.redirect_uris![0]!), portOf(old.redirect_uris![0]!));
    // Neither the old client's id nor its secret went to the authorization server again.
    const sent = fx
      .report()
      .slice(-8)
      .map((e) => JSON.stringify(e));
    assert.ok(fx.report().every((e) => !JSON.stringify(e).includes(OLD_SECRET)));
    assert.ok(!JSON.stringify(registrations(fx)[1]).includes(old.client_id), sent.join("\n"));
    // The new client refreshes: a revoked access token is renewed with it.
    assert.equal(run(["add", "linear", "--url", fx.url]).code, 0);
    await revokeTokens(fx);
    const v = run(["verify"]);
    assert.equal(v.code, 0, v.stdout + v.stderr);
    assert.equal(tokenGrants(fx).at(-1)?.grant_type, "refresh_token");
    nothingSecretShown(fx, dir, outputs);
  });

  it("--callback-port another port: a new client for it; a pre-registered --client-id is never replaced", async () => {
    const { dir, fx, outputs, login, entry } = await setup({
      CC_CLIENT_ID: "ci-bot",
      CC_CLIENT_SECRET: "cc-secret-unused",
    });
    assert.equal(login().code, 0);
    const old = entry().client;
    const other = await occupy(0);
    const port = (other.address() as { port: number }).port;
    other.close();
    const r = login("--callback-port", String(port));
    assert.equal(r.code, 0, r.data);
    assert.equal(registrations(fx).length, 2);
    assert.deepEqual(entry().client.redirect_uris, [`http://127.0.0.1:${port}/callback`]);
    assert.notEqual(entry().client.client_id, old.client_id);
    // ci-bot registered another redirect URI: the authorization server refuses
    // to send the browser back, the login times out, and nothing was registered.
    const stored = entry().client;
    const pre = login("--client-id", "ci-bot", "--timeout", "2");
    assert.equal(pre.code, 1, pre.data);
    assert.match(pre.data, /client_id=ci-bot&/);
    assert.match(pre.data, /contractpin: no login within 2 s/);
    assert.equal(registrations(fx).length, 2);
    assert.deepEqual(entry().client, stored);
    nothingSecretShown(fx, dir, outputs);
  });

  it("a login with a pre-registered --client-id stores that client with its tokens, so a refresh presents them under it", async () => {
    const free = await occupy(0);
    const port = (free.address() as { port: number }).port;
    free.close();
    const { dir, fx, outputs, login, run, entry } = await setup({
      PRE_CLIENT_ID: "desk-app",
      PRE_REDIRECT: `http://127.0.0.1:${port}/callback`,
    });
    assert.equal(login().code, 0);
    const dynamic = entry().client.client_id;
    const r = login("--client-id", "desk-app", "--callback-port", String(port));
    assert.equal(r.code, 0, r.data);
    assert.deepEqual(entry().client, { client_id: "desk-app" });
    assert.equal(run(["add", "linear", "--url", fx.url]).code, 0);
    await revokeTokens(fx);
    const v = run(["verify"]);
    assert.equal(v.code, 0, v.stdout + v.stderr);
    const refresh = tokenGrants(fx).at(-1) as { grant_type: string; client_id?: string };
    assert.equal(refresh.grant_type, "refresh_token");
    assert.equal(refresh.client_id, "desk-app");
    assert.notEqual(dynamic, "desk-app");
    nothingSecretShown(fx, dir, outputs);
  });
});
