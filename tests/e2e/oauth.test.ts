import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { tempDir } from "../helpers/cleanup.js";
import { oneLine, runCli } from "../helpers/cli.js";
import {
  addAndVerify,
  assertNoTokenShown,
  everythingShown,
  issuedTokens,
  loginOnTerminal,
  revokeTokens,
  startOAuthFixture,
  tokenGrants,
  type OAuthFixture,
} from "../helpers/oauth.js";

describe("a server behind OAuth: login, then the reads use the stored credential", () => {
  let fx: OAuthFixture;
  let dir: string;
  let env: Record<string, string>;
  const outputs: string[] = [];
  before(async () => {
    dir = tempDir();
    fx = await startOAuthFixture(dir);
    env = { CONTRACTPIN_CONFIG_DIR: join(dir, "config"), CI: "" };
  });

  it("add without a login fails that server with the command to run (exit 1)", () => {
    const r = runCli(["add", "linear", "--url", fx.url], { cwd: dir, env });
    outputs.push(r.stdout, r.stderr);
    assert.equal(r.code, 1, r.stderr);
    assert.ok(oneLine(r.stderr), r.stderr);
    assert.match(r.stderr, /needs an OAuth login: run 'contractpin login linear'/);
    assert.ok(r.stderr.includes(`'contractpin login --url ${fx.url}'`), r.stderr);
  });

  it("login runs the authorization code flow and stores the tokens outside the repository", () => {
    const r = loginOnTerminal(["--url", fx.url, "--no-browser"], env, dir);
    outputs.push(r.data);
    assert.equal(r.code, 0, r.data);
    assert.match(r.data, /Open this URL to log in/);
    assert.match(r.data, new RegExp(`logged in to .* \\(authorization server ${fx.issuer}\\)`));
    const authorize = fx.report().find((e) => e.path === "/authorize");
    assert.ok(authorize !== undefined, "the authorization URL was opened");
    const token = fx.report().find((e) => e.path === "/token");
    assert.match(String(token?.body), /"grant_type":"authorization_code"/);
    assert.match(String(token?.body), /"code_verifier":"[A-Za-z0-9._~-]{43,}"/);
    const stored = JSON.parse(readFileSync(join(dir, "config", "credentials.json"), "utf8"));
    const entry = stored.resources[fx.url][fx.issuer];
    assert.equal(entry.tokens.access_token, issuedTokens(fx)[0]);
  });

  it("add and verify send the stored token to the server, and only there", () => {
    const access = addAndVerify(fx, dir, env, outputs);
    // The authorization server never saw the access token, nor a request with the lock's headers.
    assert.ok(
      fx
        .report()
        .filter((e) => e.path !== "/mcp")
        .every((e) => e.authorization === null || !String(e.authorization).includes(access!)),
    );
  });

  it("a lock whose url now names another origin: the credential is not sent, the server fails (exit 1)", () => {
    const lockFile = join(dir, "contractpin.lock");
    const original = readFileSync(lockFile, "utf8");
    writeFileSync(lockFile, original.replace(fx.url, fx.otherUrl));
    const before = fx.report().length;
    const r = runCli(["verify"], { cwd: dir, env });
    outputs.push(r.stdout, r.stderr);
    writeFileSync(lockFile, original);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /UNREACHABLE.*contractpin login linear/);
    const other = new URL(fx.otherUrl).port;
    const sent = fx
      .report()
      .slice(before)
      .filter((e) => String(e.port) === other);
    assert.ok(sent.length > 0, "the other origin was contacted");
    assert.ok(
      sent.every((e) => e.authorization === null),
      JSON.stringify(sent),
    );
  });

  it("no token or refresh token the authorization server issued appears in any output, the lock or its snapshot", () => {
    assertNoTokenShown(fx, everythingShown(dir, outputs));
  });

  it("logout deletes the stored credential; verify then asks for a login again", () => {
    const out = runCli(["logout", "linear"], { cwd: dir, env });
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stdout, /removed the credential of linear/);
    const stored = JSON.parse(readFileSync(join(dir, "config", "credentials.json"), "utf8"));
    assert.deepEqual(stored.resources, {});
    const r = runCli(["verify"], { cwd: dir, env });
    assert.equal(r.code, 1);
    assert.match(r.stdout, /needs an OAuth login/);
  });
});

describe("an access token that expired is refreshed, the new tokens saved before use", () => {
  it("verify refreshes, stores the rotated refresh token, and the old one is gone", async () => {
    const dir = tempDir();
    // Every access token expires within contractpin's safety margin: expired at once.
    const fx = await startOAuthFixture(dir, { EXPIRES_IN: "5" });
    const env = { CONTRACTPIN_CONFIG_DIR: join(dir, "config"), CI: "" };
    assert.equal(loginOnTerminal(["--url", fx.url, "--no-browser"], env, dir).code, 0);
    const add = runCli(["add", "linear", "--url", fx.url], { cwd: dir, env });
    assert.equal(add.code, 0, add.stderr);
    const r = runCli(["verify"], { cwd: dir, env });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const grants = fx
      .report()
      .filter((e) => e.path === "/token")
      .map((e) => JSON.parse(String(e.body)).grant_type);
    assert.deepEqual(grants.slice(0, 2), ["authorization_code", "refresh_token"]);
    const tokens = issuedTokens(fx);
    const stored = JSON.parse(readFileSync(join(dir, "config", "credentials.json"), "utf8"));
    const entry = stored.resources[fx.url][fx.issuer];
    // The last tokens issued are the stored ones.
    assert.equal(entry.tokens.refresh_token, tokens.at(-1));
    assert.equal(entry.tokens.access_token, tokens.at(-2));
    for (const t of tokens) assert.ok(!(r.stdout + r.stderr + add.stdout + add.stderr).includes(t));
  });
});

describe("an authorization server that answers a refresh without a new refresh token", () => {
  it("the one presented is kept, and a later refresh still works with it", async () => {
    const dir = tempDir();
    const fx = await startOAuthFixture(dir, { REFRESH_KEEPS: "1" });
    const env = { CONTRACTPIN_CONFIG_DIR: join(dir, "config"), CI: "" };
    const outputs: string[] = [];
    const login = loginOnTerminal(["--url", fx.url, "--no-browser"], env, dir);
    outputs.push(login.data);
    assert.equal(login.code, 0, login.data);
    const entry = () =>
      JSON.parse(readFileSync(join(dir, "config", "credentials.json"), "utf8")).resources[fx.url][
        fx.issuer
      ].tokens as { access_token: string; refresh_token?: string };
    const refresh = entry().refresh_token;
    assert.ok(refresh !== undefined);
    const add = runCli(["add", "linear", "--url", fx.url], { cwd: dir, env });
    outputs.push(add.stdout, add.stderr);
    assert.equal(add.code, 0, add.stderr);
    for (const round of [1, 2]) {
      await revokeTokens(fx);
      const r = runCli(["verify"], { cwd: dir, env });
      outputs.push(r.stdout, r.stderr);
      assert.equal(r.code, 0, `round ${round}: ${r.stdout}${r.stderr}`);
      assert.match(r.stdout, /^linear\s+ok/m);
      assert.match(r.stderr, /^\[1\/1\] linear: ok \([\d.]+ s\)\n$/);
      // The new access token is stored beside the refresh token presented.
      assert.equal(entry().access_token, issuedTokens(fx).at(-1));
      assert.equal(entry().refresh_token, refresh);
    }
    assert.deepEqual(
      tokenGrants(fx).map((g) => [g.grant_type, g.refresh_token]),
      [
        ["authorization_code", undefined],
        ["refresh_token", refresh],
        ["refresh_token", refresh],
      ],
    );
    // The login's grant and the two refreshes, each an access token (a refresh keeps the refresh token).
    assertNoTokenShown(fx, everythingShown(dir, outputs), { least: 4 });
  });
});

describe("login never waits for a browser under CI or without a terminal", () => {
  it("refuses in one line (exit 2) and opens no listener", () => {
    const dir = tempDir();
    for (const env of [{ CI: "true" }, { CI: "" }]) {
      const r = runCli(["login", "--url", "http://127.0.0.1:9/mcp"], {
        cwd: dir,
        env: { ...env, CONTRACTPIN_CONFIG_DIR: join(dir, "c") },
      });
      assert.equal(r.code, 2, r.stderr);
      assert.ok(oneLine(r.stderr), r.stderr);
      assert.match(r.stderr, /login needs a person at a terminal/);
    }
  });
});

describe("a credential is refused to another authorization server before anything is sent", () => {
  it("the server now names another issuer: exit 1, no token or registration request, the refresh token never sent", async () => {
    const dir = tempDir();
    const fx = await startOAuthFixture(dir);
    const config = join(dir, "config");
    const env = { CONTRACTPIN_CONFIG_DIR: config, CI: "" };
    assert.equal(loginOnTerminal(["--url", fx.url, "--no-browser"], env, dir).code, 0);
    assert.equal(runCli(["add", "linear", "--url", fx.url], { cwd: dir, env }).code, 0);
    // Re-key the stored credential to another issuer, expired, as if the
    // server's metadata had since been changed to name a new authorization server.
    const path = join(config, "credentials.json");
    const stored = JSON.parse(readFileSync(path, "utf8"));
    const entry = stored.resources[fx.url][fx.issuer];
    const elsewhere = "https://auth.elsewhere.example/";
    stored.resources[fx.url] = { [elsewhere]: { ...entry, issuer: elsewhere, savedAt: 0 } };
    writeFileSync(path, JSON.stringify(stored), { mode: 0o600 });
    const before = fx.report().length;
    const r = runCli(["verify"], { cwd: dir, env });
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(
      r.stdout,
      /names the authorization server http:\/\/127\.0\.0\.1:\d+\/, but its credential is from https:\/\/auth\.elsewhere\.example\//,
    );
    const after = fx.report().slice(before);
    assert.ok(
      after.every((e) => e.path !== "/token" && e.path !== "/register"),
      JSON.stringify(after),
    );
    assert.ok(!JSON.stringify(after).includes(entry.tokens.refresh_token));
  });
});
