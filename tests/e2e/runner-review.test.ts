// A server run through a package runner without an exact version is a
// first-sight finding (issue 35): its line names the version that would run
// now, asked of the registry the runner would ask, and the upgrade command
// that pins it. Against a real npm registry (verdaccio) on loopback, as the
// upgrade tests run it: nothing reaches the public registry.
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { spawnSync } from "node:child_process";
import { CLI, runCli } from "../helpers/cli.js";
import { cleanUp } from "../helpers/cleanup.js";
import { closedRegistry, startRegistry, type LocalRegistry } from "../helpers/registry.js";
import { Workspace } from "../helpers/workspace.js";

const PKG = "contractpin-fixture-server";
let registry: LocalRegistry;
let down: string;

before(async () => {
  registry = await startRegistry();
  down = await closedRegistry();
  registry.publish(PKG, "1.0.0", "1.0.0");
  registry.publish(PKG, "1.1.0", "1.1.0");
});
after(() => cleanUp());

/** A project whose .mcp.json runs the fixture as `spec` through npx, and the env that sends npm to the registry. */
function project(spec: string): { ws: Workspace; env: Record<string, string> } {
  const ws = new Workspace();
  const home = ws.path("home");
  mkdirSync(home);
  const auth = `${registry.url.replace(/^http:/, "")}:_authToken=${registry.token}`;
  writeFileSync(
    join(home, ".npmrc"),
    `registry=${registry.url}\n${auth}\ncache=${join(home, "npm-cache")}\nupdate-notifier=false\n`,
  );
  ws.write(
    ".mcp.json",
    JSON.stringify({ mcpServers: { dict: { command: "npx", args: ["-y", spec] } } }),
  );
  return { ws, env: { HOME: home, npm_config_userconfig: "", npm_config_registry: "" } };
}

const reviewLine = (url: string) =>
  `      [medium] package-runner-unpinned at command/2: ${PKG} runs through npx without an exact version: each start runs the newest, now 1.1.0 (${url}); pin it: contractpin upgrade dict --to 1.1.0 --write`;

describe("package-runner-unpinned", () => {
  test("init reviews an unpinned npx server with the version that runs now and the upgrade that pins it; audit says the same; the upgrade pins it", () => {
    const { ws, env } = project(PKG);
    const init = runCli(["init"], { cwd: ws.dir, env });
    assert.equal(init.code, 0, init.stderr);
    const lines = init.stdout.split("\n");
    assert.ok(lines.includes(reviewLine(registry.url)), init.stdout);

    const audit = runCli(["audit", "--json"], { cwd: ws.dir, env });
    assert.equal(audit.code, 0, audit.stderr);
    // The fixture's lookup tool has a URL in its description: that finding is its own.
    const runnerOf = (stdout: string) =>
      (JSON.parse(stdout).servers[0].findings as { rule: string }[]).filter(
        (f) => f.rule === "package-runner-unpinned",
      );
    assert.deepEqual(runnerOf(audit.stdout), [
      {
        rule: "package-runner-unpinned",
        severity: "medium",
        pointer: "/command/2",
        after: {
          package: PKG,
          runner: "npx",
          ecosystem: "npm",
          latest: "1.1.0",
          registry: registry.url,
        },
      },
    ]);
    const failing = runCli(["audit", "--fail-on", "medium"], { cwd: ws.dir, env });
    assert.equal(failing.code, 1, failing.stdout);

    // The command the line names pins it: then there is nothing to say.
    const upgrade = runCli(["upgrade", "dict", "--to", "1.1.0", "--write"], { cwd: ws.dir, env });
    assert.equal(upgrade.code, 0, upgrade.stdout + upgrade.stderr);
    assert.deepEqual(ws.lockJson().servers["dict"]!["command"], ["npx", "-y", `${PKG}@1.1.0`]);
    const clean = runCli(["audit", "--json"], { cwd: ws.dir, env });
    assert.equal(clean.code, 0, clean.stdout);
    assert.deepEqual(runnerOf(clean.stdout), []);
  });

  test("a registry that cannot be asked is said so, never left out; an exact version asks nothing", () => {
    const { ws, env } = project(PKG);
    assert.equal(runCli(["init"], { cwd: ws.dir, env }).code, 0);
    // From now on the runner's registry cannot be reached.
    writeFileSync(join(env.HOME!, ".npmrc"), `registry=${down}\nupdate-notifier=false\n`);
    const audit = runCli(["audit"], { cwd: ws.dir, env });
    assert.equal(audit.code, 0, audit.stderr);
    assert.match(
      audit.stdout,
      new RegExp(
        `^ {4}\\[medium\\] package-runner-unpinned at command/2: ${PKG} runs through npx without an exact version: the version that would run now is unknown, the registry could not be asked \\(registry ${down.replace(/[.]/g, "\\.")}: .+\\); pin it: contractpin upgrade dict --write$`,
        "m",
      ),
    );
    const json = JSON.parse(runCli(["audit", "--json"], { cwd: ws.dir, env }).stdout);
    const finding = json.servers[0].findings[0];
    assert.equal(finding.rule, "package-runner-unpinned");
    assert.equal(finding.after.latest, undefined);
    assert.match(finding.after.unknown, /^registry http:\/\/127\.0\.0\.1:\d+\/: /);

    // Pinned exactly: no finding, and the registry that is down is not asked.
    const lock = ws.lockJson();
    lock.servers["dict"]!["command"] = ["npx", "-y", `${PKG}@1.0.0`];
    ws.write("contractpin.lock", JSON.stringify(lock, null, 2));
    const pinned = runCli(["audit", "--json"], { cwd: ws.dir, env });
    assert.equal(pinned.code, 0, pinned.stderr);
    const findings = JSON.parse(pinned.stdout).servers[0].findings as { rule: string }[];
    assert.deepEqual(
      findings.map((f) => f.rule),
      ["description-url"],
    );
  });

  test("with a lock named by --lock, the upgrade the line suggests names it, and run by a shell as printed it pins that lock", () => {
    const { ws, env } = project(PKG);
    mkdirSync(ws.path("team locks"));
    const lock = "team locks/mcp.lock";
    const init = runCli(["init", "--lock", lock], { cwd: ws.dir, env });
    assert.equal(init.code, 0, init.stderr);
    const suggested = `contractpin upgrade --lock 'team locks/mcp.lock' dict --to 1.1.0 --write`;
    assert.ok(
      init.stdout.split("\n").some((l) => l.endsWith(`; pin it: ${suggested}`)),
      init.stdout,
    );
    const audit = runCli(["audit", "--lock", lock], { cwd: ws.dir, env });
    assert.ok(
      audit.stdout.split("\n").some((l) => l.endsWith(`; pin it: ${suggested}`)),
      audit.stdout,
    );

    // The line as a person would paste it, with contractpin this build.
    const shell = spawnSync(
      "sh",
      ["-c", `contractpin() { "$NODE_BIN" "$CLI_BIN" "$@"; }; ${suggested}`],
      {
        cwd: ws.dir,
        env: {
          ...process.env,
          GITHUB_ACTIONS: undefined,
          GITHUB_STEP_SUMMARY: undefined,
          ...env,
          NODE_BIN: process.execPath,
          CLI_BIN: CLI,
        },
        encoding: "utf8",
      },
    );
    assert.equal(shell.status, 0, shell.stdout + shell.stderr);
    assert.deepEqual(JSON.parse(ws.read(lock)).servers["dict"]["command"], [
      "npx",
      "-y",
      `${PKG}@1.1.0`,
    ]);
  });
});

describe("npx told not to install (npx --no)", () => {
  test("runs what the project installed: no warning, no finding, no registry asked; outdated says so and upgrade refuses", () => {
    const { ws, env } = project(PKG);
    ws.write(
      ".mcp.json",
      JSON.stringify({ mcpServers: { dict: { command: "npx", args: ["--no", PKG] } } }),
    );
    ws.write("package.json", JSON.stringify({ name: "p", version: "1.0.0", private: true }));
    const install = spawnSync("npm", ["install", "--no-audit", "--no-fund", `${PKG}@1.0.0`], {
      cwd: ws.dir,
      env: { ...process.env, ...env },
      encoding: "utf8",
    });
    assert.equal(install.status, 0, install.stderr);
    const init = runCli(["init"], { cwd: ws.dir, env });
    assert.equal(init.code, 0, init.stderr);
    assert.doesNotMatch(init.stderr, /not pinned/);
    assert.doesNotMatch(init.stdout, /package-runner-unpinned/);
    // The registry is now down: nothing may need it.
    writeFileSync(join(env.HOME!, ".npmrc"), `registry=${down}\nupdate-notifier=false\n`);
    const audit = runCli(["audit", "--json"], { cwd: ws.dir, env });
    assert.equal(audit.code, 0, audit.stderr);
    const rules = (JSON.parse(audit.stdout).servers[0].findings as { rule: string }[]).map(
      (f) => f.rule,
    );
    assert.deepEqual(rules, []);
    const outdated = runCli(["outdated", "--json"], { cwd: ws.dir, env });
    assert.equal(outdated.code, 0, outdated.stdout + outdated.stderr);
    assert.deepEqual(JSON.parse(outdated.stdout).servers, [
      { name: "dict", status: "installed", package: PKG, runner: "npx", ecosystem: "npm" },
    ]);
    assert.match(
      runCli(["outdated"], { cwd: ws.dir, env }).stdout,
      new RegExp(
        `^dict: ${PKG} not checked: npx is told not to install, so it runs only what is already installed`,
      ),
    );
    const upgrade = runCli(["upgrade", "dict", "--to", "1.1.0"], { cwd: ws.dir, env });
    assert.equal(upgrade.code, 2, upgrade.stdout + upgrade.stderr);
    assert.match(upgrade.stderr, /npx is told not to install, so it runs the installed /);
    // The server that ran is the installed one: verify reads it as pinned.
    assert.equal(runCli(["verify"], { cwd: ws.dir, env }).code, 0);
  });
});
