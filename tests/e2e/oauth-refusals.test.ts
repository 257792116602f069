// Issue 15: what a read does when the server refuses a credential it was
// given. A stored access token revoked before its expiry is refreshed once,
// else a login is asked for; a 403 insufficient_scope is a step-up: once, by
// a client_credentials flow, and for a stored login one line naming
// `contractpin login NAME --scope`. Through the built CLI against the
// loopback OAuth fixture (tests/fixtures/servers/oauth-server.mjs).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { tempDir } from "../helpers/cleanup.js";
import { runCli, type CliResult } from "../helpers/cli.js";
import {
  addAuth,
  assertNoTokenShown,
  everythingShown,
  issuedTokens,
  loginOnTerminal,
  revokeTokens,
  startOAuthFixture,
  tokenGrants,
  type OAuthFixture,
} from "../helpers/oauth.js";

const SECRET = "cc-Secret-H4k8Wm2Rz6Tq9Pn";

/** A fixture started with `fixtureEnv`; `run` and `login` use `runEnv` and record every output. */
async function setup(
  fixtureEnv: Record<string, string> = {},
  runEnv: Record<string, string> = { CI: "" },
) {
  const dir = tempDir();
  const fx = await startOAuthFixture(dir, fixtureEnv);
  const env = { CONTRACTPIN_CONFIG_DIR: join(dir, "config"), ...runEnv };
  const outputs: string[] = [];
  const run = (args: string[]): CliResult => {
    const r = runCli(args, { cwd: dir, env });
    outputs.push(r.stdout, r.stderr);
    return r;
  };
  const login = (...extra: string[]) => {
    const r = loginOnTerminal(
      // No --callback-port: a later login listens on the port its client
      // registered, as the fixture's authorization server checks it exactly.
      ["--url", fx.url, "--no-browser", ...extra],
      env,
      dir,
    );
    outputs.push(r.data);
    assert.equal(r.code, 0, r.data);
  };
  return { dir, fx, env, outputs, run, login };
}

/** No token the fixture issued, nor the client secret, in any output, the lock or its snapshot. */
function nothingSecretShown(fx: OAuthFixture, dir: string, outputs: string[]): void {
  assertNoTokenShown(fx, everythingShown(dir, outputs), { also: [SECRET] });
}

const stored = (dir: string, fx: OAuthFixture) =>
  JSON.parse(readFileSync(join(dir, "config", "credentials.json"), "utf8")).resources[fx.url][
    fx.issuer
  ].tokens as { access_token: string; refresh_token: string; scope?: string };

describe("a stored access token revoked before it expired", () => {
  it("is refreshed once, the rotated tokens saved, and verify passes (exit 0)", async () => {
    const { dir, fx, outputs, run, login } = await setup();
    login();
    assert.equal(run(["add", "linear", "--url", fx.url]).code, 0);
    await revokeTokens(fx);
    const r = run(["verify"]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /linear\s+ok/);
    assert.match(r.stderr, /^\[1\/1\] linear: ok \([\d.]+ s\)\n$/);
    assert.deepEqual(
      tokenGrants(fx).map((g) => g.grant_type),
      ["authorization_code", "refresh_token"],
    );
    const tokens = issuedTokens(fx);
    assert.equal(stored(dir, fx).access_token, tokens.at(-2));
    assert.equal(stored(dir, fx).refresh_token, tokens.at(-1));
    nothingSecretShown(fx, dir, outputs);
  });

  it("with its refresh token revoked too: exit 1, the login line, one refresh tried", async () => {
    const { dir, fx, outputs, run, login } = await setup();
    login();
    assert.equal(run(["add", "linear", "--url", fx.url]).code, 0);
    await revokeTokens(fx, true);
    const r = run(["verify"]);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(
      r.stdout,
      /^linear\s+UNREACHABLE\s+the server needs an OAuth login: run 'contractpin login linear' /m,
    );
    assert.doesNotMatch(r.stdout + r.stderr, /refused/);
    assert.doesNotMatch(r.stderr, /mcp-sdk/);
    assert.deepEqual(
      tokenGrants(fx).map((g) => g.grant_type),
      ["authorization_code", "refresh_token"],
    );
    nothingSecretShown(fx, dir, outputs);
  });
});

// A CI run, and the add that pins `linear` with the lock's client_credentials auth member.
const CI_ENV = { CI: "true", CC_SECRET: SECRET };
const ccAdd = (fx: OAuthFixture) =>
  addAuth(fx, "linear", "client_credentials", "ci-bot", ["--client-secret-env", "CC_SECRET"]);

describe("403 insufficient_scope (a step-up)", () => {
  it("client_credentials asks once more with the union of scopes, and verify passes", async () => {
    const { dir, fx, outputs, run } = await setup(
      { CC_CLIENT_ID: "ci-bot", CC_CLIENT_SECRET: SECRET, STEP_UP_SCOPE: "mcp:admin" },
      CI_ENV,
    );
    const add = run(ccAdd(fx));
    assert.equal(add.code, 0, add.stderr);
    const before = tokenGrants(fx).length;
    const r = run(["verify"]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /linear\s+ok/);
    assert.match(r.stderr, /^\[1\/1\] linear: ok \([\d.]+ s\)\n$/);
    assert.deepEqual(
      tokenGrants(fx)
        .slice(before)
        .map((g) => [g.grant_type, g.scope]),
      [
        ["client_credentials", "mcp:tools"],
        ["client_credentials", "mcp:tools mcp:admin"],
      ],
    );
    nothingSecretShown(fx, dir, outputs);
  });

  it("never loops: a server that still demands the scope fails after one step-up (exit 1)", async () => {
    const { dir, fx, outputs, run } = await setup(
      {
        CC_CLIENT_ID: "ci-bot",
        CC_CLIENT_SECRET: SECRET,
        STEP_UP_SCOPE: "mcp:admin",
        GRANT_ONLY: "mcp:tools",
      },
      CI_ENV,
    );
    const r = run(ccAdd(fx));
    assert.equal(r.code, 1, r.stderr);
    // Under CI, add prints a plain progress line per server ("[1/1] ...") first.
    const stderr = r.stderr.replace(/^\[\d+\/\d+\] .*\n/gm, "");
    assert.equal(
      stderr,
      "contractpin: server linear: tools/list page 1: the server still answered 403 insufficient_scope " +
        "(scope 'mcp:tools mcp:admin') after one step-up\n",
    );
    assert.equal(r.stdout, "");
    assert.equal(tokenGrants(fx).length, 2);
    nothingSecretShown(fx, dir, outputs);
  });

  it("a stored login cannot step up without a person: one line naming login --scope; that login asks for it", async () => {
    const { dir, fx, outputs, run, login } = await setup({ STEP_UP_SCOPE: "mcp:admin" });
    login();
    const add = run(["add", "linear", "--url", fx.url]);
    assert.equal(add.code, 1, add.stderr);
    const scope = "--scope 'mcp:tools mcp:admin'";
    assert.equal(
      add.stderr,
      "contractpin: server linear: tools/list page 1: the server needs the scope 'mcp:tools mcp:admin', which the " +
        `stored login lacks: run: contractpin login linear ${scope} (for a server not in the ` +
        `lock yet: contractpin login --url ${fx.url} ${scope})\n`,
    );
    const grants = tokenGrants(fx).length;
    login("--scope", "mcp:tools mcp:admin");
    const authorize = fx.report().findLast((e) => e.path === "/authorize");
    assert.ok(authorize !== undefined);
    assert.equal(tokenGrants(fx).length, grants + 1);
    assert.equal(stored(dir, fx).scope, "mcp:tools mcp:admin");
    const again = run(["add", "linear", "--url", fx.url]);
    assert.equal(again.code, 0, again.stderr);
    const verify = run(["verify"]);
    assert.equal(verify.code, 0, verify.stdout + verify.stderr);
    nothingSecretShown(fx, dir, outputs);
  });

  it("verify names the server in the login --scope line (exit 1)", async () => {
    const { dir, fx, outputs, run, login } = await setup({ STEP_UP_SCOPE: "mcp:admin" });
    login("--scope", "mcp:tools mcp:admin");
    assert.equal(run(["add", "linear", "--url", fx.url]).code, 0);
    // A new login without the wider scope replaces the stored one.
    login();
    const r = run(["verify"]);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(
      r.stdout,
      /^linear\s+UNREACHABLE\s+tools\/list page 1: the server needs the scope 'mcp:tools mcp:admin', which the stored login lacks: run: contractpin login linear --scope 'mcp:tools mcp:admin' \(/m,
    );
    nothingSecretShown(fx, dir, outputs);
  });

  it("the scope a server names is shown sanitised and quoted for a shell", async () => {
    // A C1 control (CSI) and a quote, in a header value the fixture can send (Latin-1).
    const { dir, fx, outputs, run, login } = await setup({ STEP_UP_SCOPE: "it's\u009b2J" });
    login();
    const r = run(["add", "linear", "--url", fx.url]);
    assert.equal(r.code, 1, r.stderr);
    const quoted = "'mcp:tools it'\\''s<U+009B>2J'";
    assert.ok(
      r.stderr.startsWith(
        `contractpin: server linear: tools/list page 1: the server needs the scope ${quoted}, which the stored ` +
          `login lacks: run: contractpin login linear --scope ${quoted} (`,
      ),
      r.stderr,
    );
    assert.ok(!outputs.join("").includes("\u009b"));
    nothingSecretShown(fx, dir, outputs);
  });
});
