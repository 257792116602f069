import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { cleanUp } from "../helpers/cleanup.js";
import { oneLine, runCli } from "../helpers/cli.js";
import { buildTree, PY_PKG, serveTree } from "../helpers/python-index.js";
import { closedRegistry } from "../helpers/registry.js";
import { recipeDeps } from "../helpers/renovate-recipe.js";
import { Workspace } from "../helpers/workspace.js";

// outdated and upgrade for Python runners, through the built CLI, against
// static Simple API trees of real wheels and sdists served by python3's
// http.server on loopback. pipx (Debian's 1.1.0) really installs and runs the
// fixture server from there; uv is not installed here, so uvx servers are
// lock entries that are looked up, never started. Nothing reaches PyPI.
// pipx is a prerequisite of the tests, as pre-commit is (README, .ci/run).
let html: string; // 1.0.0 and 1.1.0, PEP 503 HTML
let json: string; // 1.0.0 and 1.2.0, PEP 691 JSON
let down: string;

before(async () => {
  html = (
    await serveTree(
      buildTree([
        { version: "1.0.0", tools: "1.0.0" },
        { version: "1.1.0", tools: "1.1.0" },
      ]),
    )
  ).url;
  json = (
    await serveTree(
      buildTree(
        [
          { version: "1.0.0", tools: "1.0.0" },
          { version: "1.2.0", tools: "1.1.0" },
        ],
        true,
      ),
      true,
    )
  ).url;
  down = await closedRegistry();
});
after(() => cleanUp());

const pipxArgs = (version: string) => ["run", "--spec", `${PY_PKG}==${version}`, PY_PKG];

/**
 * A project whose .mcp.json runs the fixture through `pipx run`, pinned with
 * init (pipx installing it from the HTML index PIP_INDEX_URL names, in a HOME
 * of its own).
 */
function project(): { ws: Workspace; env: Record<string, string>; home: string } {
  const ws = new Workspace();
  const home = ws.path("home");
  mkdirSync(home);
  ws.write(
    ".mcp.json",
    `{\n  "mcpServers": {\n    "py": { "command": "pipx", "args": ${JSON.stringify(pipxArgs("1.0.0"))} }\n  }\n}\n`,
  );
  const env = { HOME: home, PIP_INDEX_URL: html, PIP_CONFIG_FILE: "", XDG_CONFIG_HOME: "" };
  const init = runCli(["init"], { cwd: ws.dir, env });
  assert.equal(init.code, 0, init.stderr);
  return { ws, env, home };
}

/** Rewrites the lock: `py` kept, others added with the same pin and their own command and env. */
function withServers(
  ws: Workspace,
  servers: Record<string, { command: string[]; env?: Record<string, string> }>,
) {
  const lock = JSON.parse(ws.read());
  for (const [name, s] of Object.entries(servers))
    lock.servers[name] = { ...lock.servers.py, ...s };
  ws.write("contractpin.lock", JSON.stringify(lock, null, 2));
}

describe("outdated, Python runners", () => {
  test("pipx: newer on the index (exit 1); the newest pinned (exit 0); --json", () => {
    const { ws, env } = project();
    const r = runCli(["outdated"], { cwd: ws.dir, env });
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stdout, `py: ${PY_PKG} 1.0.0 -> 1.1.0 is newer (${html})\n`);
    const j = JSON.parse(runCli(["outdated", "--json"], { cwd: ws.dir, env }).stdout);
    assert.deepEqual(j.servers[0], {
      name: "py",
      status: "outdated",
      package: PY_PKG,
      runner: "pipx run",
      ecosystem: "pipx",
      current: "1.0.0",
      latest: "1.1.0",
      registry: html,
    });
    withServers(ws, { py: { command: ["pipx", ...pipxArgs("1.1.0")] } });
    const current = runCli(["outdated"], { cwd: ws.dir, env });
    assert.equal(current.code, 0, current.stderr);
    assert.equal(current.stdout, `py: ${PY_PKG} 1.1.0 is the newest (${html})\n`);
  });

  test("an unreachable index and a package the index lacks: one line each, exit 1", () => {
    const { ws, env } = project();
    withServers(ws, {
      gone: { command: ["pipx", ...pipxArgs("1.0.0").slice(0, 2), "no-such-pkg==1.0", "x"] },
    });
    const r = runCli(["outdated", "py", "gone"], {
      cwd: ws.dir,
      env: { ...env, PIP_INDEX_URL: down },
    });
    assert.equal(r.code, 1, r.stderr);
    assert.equal(
      r.stdout,
      `py: ${PY_PKG} not checked: index ${down}: ECONNREFUSED\ngone: no-such-pkg not checked: index ${down}: ECONNREFUSED\n`,
    );
    const lacks = runCli(["outdated", "gone"], { cwd: ws.dir, env });
    assert.equal(lacks.code, 1);
    assert.equal(
      lacks.stdout,
      `gone: no-such-pkg not checked: index ${html}: has no package no-such-pkg\n`,
    );
  });

  test("pipx asks pip's index, uvx uv's: each from its own config; contractpin's own UV_CONFIG_FILE is not the server's, its UV_INDEX is", () => {
    const { ws, env, home } = project();
    mkdirSync(join(home, ".config", "uv"), { recursive: true });
    // uv's user config names the JSON index, with a credential that is used and never shown.
    const secret = json.replace("http://", "http://alice:s3cr3t-pw@");
    writeFileSync(join(home, ".config", "uv", "uv.toml"), `[[index]]\nurl = "${secret}"\n`);
    mkdirSync(join(home, ".config", "pip"), { recursive: true });
    writeFileSync(join(home, ".config", "pip", "pip.conf"), `[global]\nindex-url = ${secret}\n`);
    withServers(ws, {
      uv: { command: ["uvx", `${PY_PKG}@1.0.0`] },
      uvtool: { command: ["uv", "tool", "run", "--from", `${PY_PKG}==1.2.0`, PY_PKG] },
    });
    // PIP_INDEX_URL (inherited by servers) outranks pip.conf; UV_CONFIG_FILE is not passed to
    // servers, so the uv.toml it names (an unreachable index) is not used.
    const elsewhere = join(home, "elsewhere.toml");
    writeFileSync(elsewhere, `[[index]]\nurl = "${down}"\n`);
    const r = runCli(["outdated"], { cwd: ws.dir, env: { ...env, UV_CONFIG_FILE: elsewhere } });
    assert.equal(r.code, 1, r.stderr);
    assert.equal(
      r.stdout,
      [
        `py: ${PY_PKG} 1.0.0 -> 1.1.0 is newer (${html})`,
        `uv: ${PY_PKG} 1.0.0 -> 1.2.0 is newer (${json})`,
        `uvtool: ${PY_PKG} 1.2.0 is the newest (${json})`,
        "",
      ].join("\n"),
    );
    // Without PIP_INDEX_URL, pip.conf's index (with its credential) answers for pipx.
    const { PIP_INDEX_URL: _drop, ...noPipEnv } = env;
    const conf = runCli(["outdated", "py", "--json"], { cwd: ws.dir, env: noPipEnv });
    assert.equal(JSON.parse(conf.stdout).servers[0].latest, "1.2.0");
    for (const out of [r, conf])
      assert.ok(!(out.stdout + out.stderr).includes("s3cr3t"), out.stdout);
    // What uv would read and contractpin cannot: a clear line, never "up to date".
    withServers(ws, { uv: { command: ["uvx", "--find-links", "./wheels", `${PY_PKG}@1.0.0`] } });
    const fl = runCli(["outdated", "uv"], { cwd: ws.dir, env });
    assert.equal(fl.code, 1);
    assert.match(
      fl.stdout,
      /^uv: contractpin-fixture-py not checked: uv also takes packages from --find-links/,
    );
    // UV_INDEX does reach servers (uvx would ask it first), so the look-up asks it too.
    withServers(ws, { uv: { command: ["uvx", `${PY_PKG}@1.0.0`] } });
    const viaEnv = runCli(["outdated", "uv"], { cwd: ws.dir, env: { ...env, UV_INDEX: down } });
    assert.equal(viaEnv.code, 1);
    assert.match(viaEnv.stdout, /^uv: contractpin-fixture-py not checked: .*ECONNREFUSED/);
  });
});

describe("upgrade, pipx run", () => {
  test("the candidate's drift is reported (exit 1); --write bumps lock and .mcp.json with '=='; verify then passes", () => {
    const { ws, env } = project();
    const lockBefore = ws.read();
    const r = runCli(["upgrade", "py"], { cwd: ws.dir, env });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /py: contractpin-fixture-py 1\.0\.0 -> 1\.1\.0/);
    assert.match(r.stdout, /lookup/);
    assert.match(r.stdout, /define/);
    assert.equal(ws.read(), lockBefore);
    const w = runCli(["upgrade", "py", "--write"], { cwd: ws.dir, env });
    assert.equal(w.code, 0, w.stderr);
    const lock = JSON.parse(ws.read());
    assert.deepEqual(lock.servers.py.command, ["pipx", ...pipxArgs("1.1.0")]);
    assert.deepEqual(Object.keys(lock.servers.py.tools).sort(), ["define", "lookup"]);
    assert.ok(ws.read(".mcp.json").includes(`"${PY_PKG}==1.1.0"`));
    // The Renovate recipe (examples/renovate.json) finds the version upgrade wrote.
    assert.deepEqual(recipeDeps(".mcp.json", ws.read(".mcp.json")), [
      { datasource: "pypi", depName: PY_PKG, currentValue: "1.1.0" },
    ]);
    const verify = runCli(["verify"], { cwd: ws.dir, env });
    assert.equal(verify.code, 0, verify.stdout + verify.stderr);
  });

  test("--to takes a version equal to an offered one under PEP 440 (1.1 is 1.1.0): the index's spelling is written", () => {
    const { ws, env } = project();
    const w = runCli(["upgrade", "py", "--to", "1.1", "--write"], { cwd: ws.dir, env });
    assert.equal(w.code, 0, w.stdout + w.stderr);
    assert.deepEqual(JSON.parse(ws.read()).servers.py.command, ["pipx", ...pipxArgs("1.1.0")]);
    // The pinned version, spelt otherwise, is no candidate: nothing to read, nothing written.
    const lock = ws.read();
    const same = runCli(["upgrade", "py", "--to", "1.1.0.0", "--write"], { cwd: ws.dir, env });
    assert.equal(same.code, 0, same.stdout + same.stderr);
    assert.equal(ws.read(), lock);
  });

  test("--to a version the index lacks: exit 1, nothing written; a --to that is no PEP 440 version: exit 2", () => {
    const { ws, env } = project();
    const lockBefore = ws.read();
    const r = runCli(["upgrade", "py", "--to", "9.9", "--write"], { cwd: ws.dir, env });
    assert.equal(r.code, 1);
    assert.match(
      r.stdout,
      /contractpin-fixture-py==9\.9 is not on http:\/\/127\.0\.0\.1:\d+\/simple\//,
    );
    assert.equal(ws.read(), lockBefore);
    const bad = runCli(["upgrade", "py", "--to", "1.0; rm -rf /"], { cwd: ws.dir, env });
    assert.equal(bad.code, 2);
    assert.ok(oneLine(bad.stderr), bad.stderr);
  });
});
