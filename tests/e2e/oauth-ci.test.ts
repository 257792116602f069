// Issue 15, "For CI": the lock's auth member and the non-interactive flows,
// through the built CLI against the loopback OAuth fixture
// (tests/fixtures/servers/oauth-server.mjs): client_credentials under CI=true,
// a refresh token from the environment with its rotation written to
// --oauth-state-out, and no secret or token in any output, lock or snapshot.
import assert from "node:assert/strict";
import { generateKeyPairSync, randomUUID } from "node:crypto";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { tempDir } from "../helpers/cleanup.js";
import { oneLine, runCli } from "../helpers/cli.js";
import {
  addAuth,
  assertNoTokenShown,
  everythingShown,
  startOAuthFixture,
  type OAuthFixture,
} from "../helpers/oauth.js";

// Shaped like real secrets, and unlike anything contractpin prints on its own.
const SECRET = "cc-Secret-Q8r2Lk5Vt9Xw4Mz";
const WRONG = "cc-Wrong-N3p7Hs2Jd6Fy1Bq";

const tokenRequests = (fx: OAuthFixture) =>
  fx
    .report()
    .filter((e) => e.path === "/token")
    .map((e) => JSON.parse(String(e.body)) as Record<string, string>);

describe("client_credentials in a CI-like run (CI=true)", () => {
  let fx: OAuthFixture;
  let dir: string;
  let env: Record<string, string | undefined>;
  let origin: string;
  const outputs: string[] = [];
  const run = (args: string[], extra: Record<string, string | undefined> = {}) => {
    const r = runCli(args, { cwd: dir, env: { ...env, ...extra } });
    outputs.push(r.stdout, r.stderr);
    return r;
  };
  before(async () => {
    dir = tempDir();
    fx = await startOAuthFixture(dir, { CC_CLIENT_ID: "ci-bot", CC_CLIENT_SECRET: SECRET });
    env = { CI: "true", CC_SECRET: SECRET, CONTRACTPIN_CONFIG_DIR: join(dir, "config") };
    origin = new URL(fx.url).origin;
  });

  it("add --auth client_credentials pins the server; the lock names the variable, never the secret", () => {
    const r = run(
      addAuth(fx, "linear", "client_credentials", "ci-bot", ["--client-secret-env", "CC_SECRET"]),
    );
    assert.equal(r.code, 0, r.stderr);
    const lock = JSON.parse(readFileSync(join(dir, "contractpin.lock"), "utf8"));
    assert.deepEqual(lock.servers.linear.auth, {
      mode: "client_credentials",
      issuer: fx.issuer,
      client_id: "ci-bot",
      client_secret: "${CC_SECRET}",
    });
    const [grant] = tokenRequests(fx);
    assert.equal(grant?.grant_type, "client_credentials");
    // The resource indicator is the server's own URL.
    assert.equal(grant?.resource, fx.url);
  });

  it("verify gets a token without a person, passes, and stores nothing", () => {
    const r = run(["verify", "--allow-env", `CC_SECRET=${origin}`]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /linear\s+ok/);
    const access = String(fx.report().findLast((e) => e.issued !== undefined)?.issued);
    const mcp = fx.report().filter((e) => e.path === "/mcp");
    assert.ok(mcp.some((e) => e.authorization === `Bearer ${access}`));
    assert.equal(existsSync(join(dir, "config")), false, "nothing was stored");
  });

  it("update keeps the auth member, and dump NAME reads the server the same way", () => {
    const lockFile = join(dir, "contractpin.lock");
    const auth = JSON.parse(readFileSync(lockFile, "utf8")).servers.linear.auth;
    const before = tokenRequests(fx).length;
    const update = run(["update", "linear"]);
    assert.equal(update.code, 0, update.stderr);
    assert.deepEqual(JSON.parse(readFileSync(lockFile, "utf8")).servers.linear.auth, auth);
    const dump = run(["dump", "linear"]);
    assert.equal(dump.code, 0, dump.stderr);
    // A server pinned with its surface is dumped whole (SPEC.md 10.3).
    assert.equal((JSON.parse(dump.stdout) as Record<string, unknown[]>)["tools/list"]!.length, 1);
    assert.equal(tokenRequests(fx).length, before + 2);
  });

  it("a wrong client secret: exit 1, one sanitised line, the secret not shown", () => {
    const r = run(["verify"], { CC_SECRET: WRONG });
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(
      r.stdout,
      /linear\s+UNREACHABLE\s+the authorization server refused: invalid_client: bad client <U\+202E> credentials\n/,
    );
    assert.ok(!(r.stdout + r.stderr).includes("\u202e"));
    assert.ok(!(r.stdout + r.stderr).includes(WRONG));
    assert.doesNotMatch(r.stderr, /mcp-sdk/);
  });

  it("a missing secret: exit 1 in one line naming the variable, nothing sent to the authorization server", () => {
    const before = tokenRequests(fx).length;
    const r = run(["verify"], { CC_SECRET: undefined });
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(
      r.stdout,
      /linear\s+UNREACHABLE\s+auth client_secret refers to \$\{CC_SECRET\}, but CC_SECRET is not set/,
    );
    assert.equal(tokenRequests(fx).length, before);
  });

  it("a lock whose url was moved to another origin: nothing is sent there, nor any token request (exit 1)", () => {
    const lockFile = join(dir, "contractpin.lock");
    const original = readFileSync(lockFile, "utf8");
    writeFileSync(lockFile, original.replace(fx.url, fx.otherUrl));
    const before = fx.report().length;
    const r = run(["verify", "--allow-env", `CC_SECRET=${origin}`]);
    writeFileSync(lockFile, original);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /would send \$\{CC_SECRET\} to http:\/\/127\.0\.0\.1:\d+/);
    assert.deepEqual(fx.report().slice(before), []);
  });

  it("a lock naming another issuer than the server's authorization server: the secret is not sent (exit 1)", () => {
    const lockFile = join(dir, "contractpin.lock");
    const original = readFileSync(lockFile, "utf8");
    writeFileSync(
      lockFile,
      original.replace(JSON.stringify(fx.issuer), '"https://auth.elsewhere.example/"'),
    );
    const before = fx.report().length;
    const r = run(["verify"]);
    writeFileSync(lockFile, original);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    // It names the lock as what to fix: a login would not help a lock's auth member.
    assert.match(
      r.stdout,
      /names the authorization server http:\/\/127\.0\.0\.1:\d+\/, not the lock's auth issuer https:\/\/auth\.elsewhere\.example\/: nothing was sent to it \(if it is the right one, change the issuer in the lock's auth member\)\n/,
    );
    assert.doesNotMatch(r.stdout, /log in/);
    const after = fx.report().slice(before);
    assert.ok(
      after.every((e) => e.path !== "/token"),
      JSON.stringify(after),
    );
    assert.ok(!JSON.stringify(after).includes(SECRET));
  });

  it("the lock reader refuses a literal secret or an unknown mode in auth (exit 2), and does not quote it", () => {
    const lockFile = join(dir, "contractpin.lock");
    const original = readFileSync(lockFile, "utf8");
    writeFileSync(lockFile, original.replace('"${CC_SECRET}"', JSON.stringify(SECRET)));
    for (const command of ["verify", "check"]) {
      const r = run([command]);
      assert.equal(r.code, 2, command + r.stdout + r.stderr);
      assert.ok(oneLine(r.stderr), r.stderr);
      assert.match(
        r.stderr,
        /lock is corrupt: servers\.linear\.auth\.client_secret must be a reference to an environment variable/,
      );
      assert.ok(!(r.stdout + r.stderr).includes(SECRET));
    }
    writeFileSync(lockFile, original.replace('"client_credentials"', '"password"'));
    const r = run(["verify"]);
    writeFileSync(lockFile, original);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /servers\.linear\.auth\.mode must be one of "client_credentials"/);
  });

  it("add refuses a secret given where a variable's name belongs (exit 2), without echoing it", () => {
    const r = run(
      addAuth(fx, "other", "client_credentials", "ci-bot", ["--client-secret-env", SECRET]),
    );
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--client-secret-env takes the name of a variable, not its value/);
    assert.ok(!r.stderr.includes(SECRET));
    const missing = run(["add", "other", "--url", fx.url, "--auth", "client_credentials"]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--issuer is required for --auth "client_credentials"/);
  });

  it("under CI a server without an auth member and no stored login fails at once, naming both ways (exit 1)", () => {
    const r = run(["add", "plain", "--url", fx.url]);
    assert.equal(r.code, 1, r.stderr);
    // Under CI, add prints a plain progress line per server before the error.
    const errors = r.stderr.split("\n").filter((l) => l.startsWith("contractpin:"));
    assert.ok(oneLine(`${errors.join("\n")}\n`), r.stderr);
    assert.match(r.stderr, /login --url [^']*'\); under CI, give the lock an auth member instead/);
  });

  it("no secret or token appears in any output, the lock or its snapshot", () => {
    // add, verify, update and dump each obtained tokens.
    assertNoTokenShown(fx, everythingShown(dir, outputs), { least: 8, also: [SECRET, WRONG] });
  });
});

describe("a refresh token from the environment (refresh_token mode)", () => {
  let fx: OAuthFixture;
  let dir: string;
  let state: string;
  const seed = `rt-seed-${randomUUID()}`;
  const outputs: string[] = [];
  const run = (args: string[], token: string) => {
    const env = { CI: "true", MCP_REFRESH: token, CONTRACTPIN_CONFIG_DIR: join(dir, "config") };
    const r = runCli(args, { cwd: dir, env });
    outputs.push(r.stdout, r.stderr);
    return r;
  };
  const stateLines = () => readFileSync(state, "utf8").split("\n").filter(Boolean);
  const lastRefresh = () => String(fx.report().findLast((e) => e.issued !== undefined)?.refresh);
  before(async () => {
    dir = tempDir();
    state = join(dir, "oauth-state.env");
    fx = await startOAuthFixture(dir, { RT_CLIENT_ID: "ci-public", RT_SEED: seed });
  });

  it("add: the rotated token is written to --oauth-state-out (mode 0600), the old one gone, other lines kept", () => {
    writeFileSync(state, "OTHER=keep\n", { mode: 0o644 });
    const r = run(
      addAuth(fx, "linear", "refresh_token", "ci-public", [
        "--refresh-token-env",
        "MCP_REFRESH",
        "--oauth-state-out",
        state,
      ]),
      seed,
    );
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.equal(statSync(state).mode & 0o777, 0o600);
    assert.deepEqual(stateLines(), ["OTHER=keep", `MCP_REFRESH=${lastRefresh()}`]);
    assert.ok(!readFileSync(state, "utf8").includes(seed));
    const [grant] = tokenRequests(fx);
    assert.equal(grant?.grant_type, "refresh_token");
    assert.equal(grant?.refresh_token, seed);
    const lock = JSON.parse(readFileSync(join(dir, "contractpin.lock"), "utf8"));
    assert.equal(lock.servers.linear.auth.refresh_token, "${MCP_REFRESH}");
  });

  it("verify with the new token and --oauth-state-out passes and rotates it again", () => {
    const current = stateLines()[1]!.slice("MCP_REFRESH=".length);
    const r = run(["verify", "--oauth-state-out", state], current);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.deepEqual(stateLines(), ["OTHER=keep", `MCP_REFRESH=${lastRefresh()}`]);
    assert.notEqual(lastRefresh(), current);
  });

  it("without --oauth-state-out a rotation fails the server with guidance (exit 1)", () => {
    const current = stateLines()[1]!.slice("MCP_REFRESH=".length);
    const r = run(["verify"], current);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(
      r.stdout,
      /linear\s+UNREACHABLE\s+the authorization server rotated the refresh token in \$\{MCP_REFRESH\}, and without --oauth-state-out FILE the new one would be lost/,
    );
  });

  it("a refresh token the authorization server refuses: exit 1, one line naming its variable", () => {
    const r = run(["verify", "--oauth-state-out", state], seed);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(
      r.stdout,
      /linear\s+UNREACHABLE\s+the authorization server did not accept the refresh token in \$\{MCP_REFRESH\}\n/,
    );
    assert.doesNotMatch(r.stderr, /mcp-sdk/);
  });

  it("no refresh or access token appears in any output, the lock or its snapshot", () => {
    // The rotations of add and verify, at least.
    assertNoTokenShown(fx, everythingShown(dir, outputs), { least: 4, also: [seed] });
  });
});

describe("client_credentials with private_key_jwt (a private key from the environment)", () => {
  const pair = () =>
    generateKeyPairSync("rsa", {
      modulusLength: 2048,
      // PKCS#1, as `openssl genrsa` writes it: contractpin converts it for signing.
      privateKeyEncoding: { type: "pkcs1", format: "pem" },
      publicKeyEncoding: { type: "spki", format: "pem" },
    });
  it("add and verify sign an assertion with the key; a wrong key or a non-key fails in one line", async () => {
    const dir = tempDir();
    const { privateKey, publicKey } = pair();
    const fx = await startOAuthFixture(dir, { PKJ_CLIENT_ID: "ci-jwt", PKJ_PUBLIC_KEY: publicKey });
    const outputs: string[] = [];
    const run = (args: string[], key: string) => {
      const env = { CI: "true", MCP_KEY: key, CONTRACTPIN_CONFIG_DIR: join(dir, "config") };
      const r = runCli(args, { cwd: dir, env });
      outputs.push(r.stdout, r.stderr);
      return r;
    };
    const add = run(
      addAuth(fx, "linear", "client_credentials", "ci-jwt", ["--private-key-env", "MCP_KEY"]),
      privateKey,
    );
    assert.equal(add.code, 0, add.stdout + add.stderr);
    const lock = JSON.parse(readFileSync(join(dir, "contractpin.lock"), "utf8"));
    assert.equal(lock.servers.linear.auth.private_key, "${MCP_KEY}");
    const verify = run(["verify"], privateKey);
    assert.equal(verify.code, 0, verify.stdout + verify.stderr);
    const [grant] = tokenRequests(fx);
    assert.equal(
      grant?.client_assertion_type,
      "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
    );
    assert.equal(grant?.client_secret, undefined);
    const assertions = fx.report().filter((e) => e.assertion !== undefined);
    assert.deepEqual(
      assertions.map((e) => (e.assertion as { ok: boolean }).ok),
      [true, true],
    );

    const wrong = run(["verify"], pair().privateKey);
    assert.equal(wrong.code, 1);
    assert.match(
      wrong.stdout,
      /linear\s+UNREACHABLE\s+the authorization server refused: invalid_client: bad client assertion\n/,
    );
    const notKey = run(["verify"], "not-a-key-at-all");
    assert.equal(notKey.code, 1);
    assert.match(
      notKey.stdout,
      /linear\s+UNREACHABLE\s+auth private_key is not a PEM private key\n/,
    );
    // The key's body, line by line, and every token: nowhere.
    const shown = everythingShown(dir, outputs);
    for (const line of privateKey.split("\n").filter((l) => l.length > 20)) {
      assert.ok(!shown.includes(line), "a line of the private key was shown");
    }
    assertNoTokenShown(fx, shown, { least: 4 });
  });
});
