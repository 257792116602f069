// login, verify and logout through the built CLI with the Secret Service
// keychain: a real gnome-keyring on a private bus (tests/helpers/secret-service.ts)
// and the loopback OAuth fixture; then the same CLI where secret-tool is
// installed but no Secret Service answers. secret-tool, dbus-daemon and
// gnome-keyring-daemon must be installed: without them these tests fail,
// they do not skip.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
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
  startOAuthFixture,
  type OAuthFixture,
} from "../helpers/oauth.js";
import {
  startSecretService,
  unreachableSecretService,
  type SecretService,
} from "../helpers/secret-service.js";

const WARNING =
  /contractpin: warning: .*secret-tool is installed, but the Secret Service does not answer/g;

describe("login, verify and logout with the Secret Service keychain", () => {
  let ss: SecretService;
  let fx: OAuthFixture;
  let dir: string;
  let env: Record<string, string>;
  const outputs: string[] = [];
  const lookup = () => ss.tool(["lookup", "service", "contractpin", "resource", fx.url]);
  before(async () => {
    ss = await startSecretService();
    dir = tempDir();
    fx = await startOAuthFixture(dir);
    env = {
      ...ss.env,
      CONTRACTPIN_CONFIG_DIR: join(dir, "config"),
      CONTRACTPIN_CREDENTIAL_STORE: "auto",
      CI: "",
    };
  });

  it("login stores the tokens in the keychain, and nothing in the file", () => {
    const r = loginOnTerminal(["--url", fx.url, "--no-browser"], env, dir);
    outputs.push(r.data);
    assert.equal(r.code, 0, r.data);
    assert.match(r.data, /stored in the Secret Service keychain/);
    assert.doesNotMatch(r.data, /warning/);
    const item = lookup();
    assert.equal(item.status, 0, item.stderr);
    const entry = JSON.parse(item.stdout)[fx.issuer];
    assert.equal(entry.tokens.access_token, issuedTokens(fx)[0]);
    assert.equal(existsSync(join(dir, "config")), false);
  });

  it("add and verify use the credential from the keychain", () => {
    addAndVerify(fx, dir, env, outputs);
  });

  it("no token the authorization server issued appears in any output, the lock or its snapshot", () => {
    assertNoTokenShown(fx, everythingShown(dir, outputs));
  });

  it("logout removes the item; verify then asks for a login again", () => {
    const out = runCli(["logout", "linear"], { cwd: dir, env });
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stdout, /removed the credential of linear from the Secret Service keychain/);
    assert.equal(lookup().status, 1, "secret-tool finds no item");
    const r = runCli(["verify"], { cwd: dir, env });
    assert.equal(r.code, 1);
    assert.match(r.stdout, /needs an OAuth login/);
  });

  it("an item contractpin cannot read: verify says so (never 'needs a login'), logout removes it", () => {
    assert.equal(
      ss.tool(["store", "--label=x", "service", "contractpin", "resource", fx.url], "{oops").status,
      0,
    );
    const r = runCli(["verify"], { cwd: dir, env });
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(
      r.stdout,
      /linear\s+UNREACHABLE\s+the Secret Service keychain holds an item for .* that contractpin cannot read; 'contractpin logout' removes it/,
    );
    assert.doesNotMatch(r.stdout + r.stderr, /needs an OAuth login/);
    const out = runCli(["logout", "linear"], { cwd: dir, env });
    assert.equal(out.code, 0, out.stderr);
    assert.equal(lookup().status, 1, "secret-tool finds no item");
  });

  // Last: the keyring stays locked.
  it("a locked keyring: login fails in one line before anyone is sent to the browser (exit 2)", () => {
    ss.lock();
    const before = fx.report().length;
    const r = loginOnTerminal(["--url", fx.url, "--no-browser"], env, dir);
    assert.equal(r.code, 2, r.data);
    assert.ok(oneLine(r.data.replace(/\r\n/g, "\n")), r.data);
    assert.match(r.data, /Secret Service keychain: cannot save a credential .*unlock the keyring/);
    assert.doesNotMatch(r.data, /Open this URL/);
    assert.deepEqual(fx.report().slice(before), []);
  });
});

describe("secret-tool installed, but no Secret Service answers (a bus address whose socket does not exist)", () => {
  let fx: OAuthFixture;
  let dir: string;
  let env: Record<string, string>;
  before(async () => {
    dir = tempDir();
    fx = await startOAuthFixture(dir);
    env = {
      ...(await unreachableSecretService("no-socket")),
      CONTRACTPIN_CONFIG_DIR: join(dir, "config"),
      CI: "",
    };
  });

  it("CONTRACTPIN_CREDENTIAL_STORE=keychain: login fails in one line naming the file, before the browser (exit 2)", () => {
    const started = Date.now();
    const before = fx.report().length;
    const r = loginOnTerminal(
      ["--url", fx.url, "--no-browser"],
      { ...env, CONTRACTPIN_CREDENTIAL_STORE: "keychain" },
      dir,
    );
    assert.equal(r.code, 2, r.data);
    assert.ok(oneLine(r.data.replace(/\r\n/g, "\n")), r.data);
    assert.match(r.data, /the Secret Service does not answer .*CONTRACTPIN_CREDENTIAL_STORE=file/);
    assert.ok(Date.now() - started < 15_000);
    assert.deepEqual(fx.report().slice(before), []);
  });

  it("auto: login keeps the tokens in the file, saying so in one warning; verify finds them there", () => {
    const auto = { ...env, CONTRACTPIN_CREDENTIAL_STORE: "auto" };
    const r = loginOnTerminal(["--url", fx.url, "--no-browser"], auto, dir);
    assert.equal(r.code, 0, r.data);
    assert.equal(r.data.match(WARNING)?.length, 1, r.data);
    assert.match(r.data, /stored in the credentials file /);
    const stored = JSON.parse(readFileSync(join(dir, "config", "credentials.json"), "utf8"));
    assert.equal(stored.resources[fx.url][fx.issuer].tokens.access_token, issuedTokens(fx)[0]);
    assert.equal(runCli(["add", "linear", "--url", fx.url], { cwd: dir, env: auto }).code, 0);
    const verify = runCli(["verify"], { cwd: dir, env: auto });
    assert.equal(verify.code, 0, verify.stdout + verify.stderr);
    assert.equal(verify.stderr.match(WARNING)?.length, 1, verify.stderr);
    assertNoTokenShown(fx, [r.data, verify.stdout, verify.stderr].join("\n"));
  });
});
