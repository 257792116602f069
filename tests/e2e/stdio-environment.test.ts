// The environment a stdio server receives (docs/servers.md, "Servers"): HOME,
// LOGNAME, PATH, SHELL, TERM, USER, TMPDIR, LANG from contractpin's own
// environment, plus the lock's `env` with its references expanded; never the
// rest of it (CI's other secrets). A fake server writes its process.env to a file.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { pythonDigest, runCli } from "../helpers/cli.js";
import { SERVERS } from "../helpers/servers.js";
import { Workspace } from "../helpers/workspace.js";

const TOOLS = new URL("../fixtures/servers/tools.json", import.meta.url);

/** contractpin's environment: the documented variables, and secrets it must keep to itself. */
const parentEnv = {
  HOME: "/home/ci-user",
  LOGNAME: "ci-user",
  USER: "ci-user",
  SHELL: "/bin/sh",
  TERM: "xterm-test",
  LANG: "C.UTF-8",
  MY_SECRET_TOKEN: "parent-secret-4f9a1c",
  AWS_SECRET_ACCESS_KEY: "parent-aws-7d2e",
  UPSTREAM_API_KEY: "upstream-value-9b3c",
  HARMLESS_SETTING: "not-documented",
};

function readReport(path: string): Record<string, string> {
  return JSON.parse(readFileSync(path, "utf8")) as Record<string, string>;
}

describe("the environment of a stdio server", () => {
  it("holds the documented variables and the --env values expanded; none of contractpin's other variables", () => {
    const ws = new Workspace();
    const report = ws.path("env.json");
    const add = runCli(
      [
        "add",
        "reporter",
        "--tools-only",
        "--env",
        "API_KEY=${UPSTREAM_API_KEY}",
        "--env",
        "GREETING=hello ${USER}",
        "--env",
        "DEBUG=1",
        "--",
        process.execPath,
        SERVERS.envReport,
        report,
      ],
      { cwd: ws.dir, env: { ...parentEnv, TMPDIR: ws.dir } },
    );
    assert.equal(add.code, 0, add.stderr);
    const env = readReport(report);
    for (const name of ["HOME", "LOGNAME", "USER", "SHELL", "TERM", "LANG"] as const)
      assert.equal(env[name], parentEnv[name], name);
    assert.equal(env["PATH"], process.env["PATH"]);
    assert.equal(env["TMPDIR"], ws.dir);
    assert.equal(env["API_KEY"], "upstream-value-9b3c", "the reference arrives expanded");
    assert.equal(env["GREETING"], "hello ci-user");
    assert.equal(env["DEBUG"], "1");
    for (const name of [
      "MY_SECRET_TOKEN",
      "AWS_SECRET_ACCESS_KEY",
      "UPSTREAM_API_KEY",
      "HARMLESS_SETTING",
    ])
      assert.equal(env[name], undefined, `${name} reached the server`);
    const values = Object.values(env).join("\n");
    assert.ok(!values.includes("parent-secret-4f9a1c") && !values.includes("parent-aws-7d2e"));

    // The lock holds the references, never their values; the digests are the server's.
    const lock = ws.read();
    assert.ok(!lock.includes("upstream-value-9b3c"));
    const pinned = ws.lockJson().servers["reporter"]!;
    assert.deepEqual(pinned["env"], {
      API_KEY: "${UPSTREAM_API_KEY}",
      DEBUG: "1",
      GREETING: "hello ${USER}",
    });
    ws.write("result.json", `{"tools":${readFileSync(TOOLS, "utf8")}}`);
    assert.equal(
      pinned["digest"],
      (pythonDigest(ws.path("result.json")) as { digest: string }).digest,
    );

    // verify expands the references again, from the environment it runs in.
    const verify = runCli(["verify"], {
      cwd: ws.dir,
      env: { ...parentEnv, UPSTREAM_API_KEY: "rotated-value-1e8d" },
    });
    assert.equal(verify.code, 0, verify.stdout + verify.stderr);
    assert.equal(readReport(report)["API_KEY"], "rotated-value-1e8d");
    assert.equal(readReport(report)["MY_SECRET_TOKEN"], undefined);
  });

  it("an --env reference to an unset variable: verify fails that server (exit 1) without starting it", () => {
    const ws = new Workspace();
    const report = ws.path("env.json");
    const add = runCli(
      [
        "add",
        "reporter",
        "--tools-only",
        "--env",
        "API_KEY=${UPSTREAM_API_KEY}",
        "--",
        process.execPath,
        SERVERS.envReport,
        report,
      ],
      { cwd: ws.dir, env: { UPSTREAM_API_KEY: "v" } },
    );
    assert.equal(add.code, 0, add.stderr);
    ws.write("env.json", "{}");
    const r = runCli(["verify"], { cwd: ws.dir, env: { UPSTREAM_API_KEY: undefined } });
    assert.equal(r.code, 1);
    assert.match(
      r.stdout,
      /reporter {2}UNREACHABLE {2}env API_KEY refers to \$\{UPSTREAM_API_KEY\}, but UPSTREAM_API_KEY is not set/,
    );
    assert.deepEqual(readReport(report), {}, "the server was not started with a blank value");
    assert.ok(existsSync(report));
  });

  it("a package runner's proxy, CA and registry settings reach the server; a credential in one does not", () => {
    const ws = new Workspace();
    const report = ws.path("env.json");
    const runnerEnv = {
      HTTPS_PROXY: "http://proxy.internal:3128",
      NO_PROXY: "localhost,127.0.0.1",
      NODE_EXTRA_CA_CERTS: "/etc/ssl/corp-ca.pem",
      npm_config_registry: "https://npm.internal/",
      NPM_CONFIG_CAFILE: "/etc/ssl/corp-ca.pem",
      PIP_INDEX_URL: "https://pypi.internal/simple",
    };
    // Each spelling a runner's HTTP client reads a credential in (docs/servers.md).
    const runnerCredentials = {
      http_proxy: "http://ci:proxy-pass-5a1e@proxy.internal:3128",
      HTTP_PROXY: "ci:nosheme-pass-4d2c@proxy.internal:3128",
      UV_INDEX_URL: "https://token-8c3d@pypi.internal/simple",
      PIP_EXTRA_INDEX_URL: "https://pypi.fury.io/1AbCdEfGhIjKlMnOpQrS/acme/",
      NPM_CONFIG_REGISTRY: "https:\\\\u:backslash-pass-7c1d@npm.internal/",
      UV_INDEX: "corp=https://u:uv-pass-3e2a@[fd00::1]/simple",
    };
    const withCredentials = {
      ...runnerCredentials,
      NPM_TOKEN: "npm_token_value_2b7f",
      NPM_CONFIG__AUTH: "auth-value-6e4a",
      "npm_config_//npm.internal/:_authToken": "authtoken-value-3f9b",
    };
    const add = runCli(["add", "reporter", "--", process.execPath, SERVERS.envReport, report], {
      cwd: ws.dir,
      env: { ...parentEnv, ...runnerEnv, ...withCredentials },
    });
    assert.equal(add.code, 0, add.stderr);
    const env = readReport(report);
    for (const [name, value] of Object.entries(runnerEnv)) assert.equal(env[name], value, name);
    for (const name of Object.keys(withCredentials))
      assert.equal(env[name], undefined, `${name} reached the server`);
    const values = Object.values(env).join("\n");
    const secrets = [
      "proxy-pass-5a1e",
      "nosheme-pass-4d2c",
      "token-8c3d",
      "1AbCdEfGhIjKlMnOpQrS",
      "backslash-pass-7c1d",
      "uv-pass-3e2a",
      "npm_token_value_2b7f",
      "auth-value-6e4a",
      "authtoken-value-3f9b",
    ];
    for (const secret of secrets) assert.ok(!values.includes(secret), secret);
    // One line on stderr for each runner variable withheld, naming it, never its value.
    const lines = add.stderr
      .split("\n")
      .filter((l) => l.includes("is not passed to stdio servers"));
    assert.deepEqual(
      lines.map((l) => /warning: server reporter: (\w+) is not passed/.exec(l)?.[1]).sort(),
      Object.keys(runnerCredentials).sort(),
      add.stderr,
    );
    for (const secret of secrets) assert.ok(!add.stderr.includes(secret), secret);
  });
});

describe("a package runner that prints nothing until the deadline", () => {
  it("gets a line that says what probably happened and what to do", () => {
    const ws = new Workspace();
    const bin = ws.path("bin");
    mkdirSync(bin);
    // What npx does on a first run behind a proxy it was not given: nothing, for a long time.
    writeFileSync(join(bin, "npx"), "#!/bin/sh\nexec sleep 30\n", { mode: 0o755 });
    const started = Date.now();
    const r = runCli(
      ["add", "slow", "--timeout", "1", "--", "npx", "-y", "some-mcp-server@1.0.0"],
      {
        cwd: ws.dir,
        env: { PATH: `${bin}:${process.env["PATH"]}` },
      },
    );
    assert.equal(r.code, 1);
    assert.ok(Date.now() - started < 10_000, "the runner is not waited for");
    assert.match(
      r.stderr,
      /^contractpin: server slow: timed out after 1 s; npx printed nothing: on a first run it may still be downloading the package, or it cannot reach its registry .*run the command once by hand, or give more time with --timeout 120\n$/,
    );
  });

  it("a server that is not run through a package runner gets no such line", () => {
    const ws = new Workspace();
    const r = runCli(["add", "slow", "--timeout", "1", "--", "sleep", "30"], { cwd: ws.dir });
    assert.equal(r.code, 1);
    assert.equal(r.stderr, "contractpin: server slow: timed out after 1 s\n");
  });
});
