import assert from "node:assert/strict";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { oneLine, runCli } from "../helpers/cli.js";
import { closedRegistry, startRegistry, type LocalRegistry } from "../helpers/registry.js";
import { Workspace } from "../helpers/workspace.js";
import { cleanUp } from "../helpers/cleanup.js";
import { recipeDeps } from "../helpers/renovate-recipe.js";

// outdated and upgrade against a real npm registry (verdaccio) on loopback:
// the fixture server is published there in two versions whose contracts
// differ, and npx installs it from there (HOME's .npmrc names the registry,
// a temporary cache keeps the machine's own out of it). Nothing reaches the
// public registry.
const PKG = "contractpin-fixture-server";
const SCOPED = "@private/fixture-server";
let registry: LocalRegistry;
let down: string;

before(async () => {
  registry = await startRegistry();
  down = await closedRegistry();
  registry.publish(PKG, "1.0.0", "1.0.0");
  registry.publish(PKG, "1.1.0", "1.1.0");
  registry.publish(SCOPED, "2.0.0", "1.0.0");
  registry.publish(SCOPED, "2.1.0", "1.1.0");
});
after(() => cleanUp());

/** A project whose .mcp.json runs the fixture at `version` through npx, pinned with init. */
function project(
  spec = `${PKG}@1.0.0`,
  npmrc?: string,
): { ws: Workspace; env: Record<string, string> } {
  const ws = new Workspace();
  const home = ws.path("home");
  mkdirSync(home);
  writeFileSync(
    join(home, ".npmrc"),
    npmrc ??
      `registry=${registry.url}\n${authLine()}\ncache=${join(home, "npm-cache")}\nupdate-notifier=false\n`,
  );
  ws.write(
    ".mcp.json",
    `{
  // the dictionary server, pinned
  "mcpServers": {
    "dict": { "command": "npx", "args": ["-y", "${spec}"] }
  }
}
`,
  );
  const env = { HOME: home, npm_config_userconfig: "", npm_config_registry: "" };
  const init = runCli(["init"], { cwd: ws.dir, env });
  assert.equal(init.code, 0, init.stderr);
  return { ws, env };
}

function authLine(): string {
  return `${registry.url.replace(/^http:/, "")}:_authToken=${registry.token}`;
}

describe("outdated", () => {
  test("a pinned npx server with a newer version on its registry: the line names both, exit 1", () => {
    const { ws, env } = project();
    const r = runCli(["outdated"], { cwd: ws.dir, env });
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stdout, `dict: ${PKG} 1.0.0 -> 1.1.0 is newer (${registry.url})\n`);
    const json = runCli(["outdated", "--json"], { cwd: ws.dir, env });
    assert.equal(json.code, 1);
    assert.deepEqual(JSON.parse(json.stdout).servers, [
      {
        name: "dict",
        status: "outdated",
        package: PKG,
        runner: "npx",
        ecosystem: "npm",
        current: "1.0.0",
        latest: "1.1.0",
        registry: registry.url,
      },
    ]);
  });

  test("an unpinned server is listed with the version that runs now, exit 0; the newest pinned is exit 0", () => {
    const unpinned = project(PKG);
    const r = runCli(["outdated"], { cwd: unpinned.ws.dir, env: unpinned.env });
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      /^dict: contractpin-fixture-server is not pinned: npx runs the newest, now 1\.1\.0 /,
    );
    const newest = project(`${PKG}@1.1.0`);
    const n = runCli(["outdated"], { cwd: newest.ws.dir, env: newest.env });
    assert.equal(n.code, 0, n.stderr);
    assert.match(n.stdout, /^dict: contractpin-fixture-server 1\.1\.0 is the newest /);
  });

  test("a scoped package on the registry a project .npmrc names, with its token; an unreachable registry fails closed", () => {
    const { ws, env } = project(`${SCOPED}@2.0.0`);
    // From now on the user's default registry cannot be reached; only the scope's is.
    writeFileSync(join(env.HOME!, ".npmrc"), `registry=${down}\n`);
    ws.write(".npmrc", `@private:registry=${registry.url}\n${authLine()}\n`);
    const lock = JSON.parse(ws.read());
    lock.servers.other = { ...lock.servers.dict, command: ["npx", "-y", `${PKG}@1.0.0`] };
    ws.write("contractpin.lock", JSON.stringify(lock, null, 2));
    const r = runCli(["outdated"], { cwd: ws.dir, env });
    assert.equal(r.code, 1, r.stderr);
    const [dict, other] = r.stdout.trimEnd().split("\n");
    assert.equal(dict, `dict: ${SCOPED} 2.0.0 -> 2.1.0 is newer (${registry.url})`);
    assert.match(
      other!,
      /^other: contractpin-fixture-server not checked: registry http:\/\/127\.0\.0\.1:\d+\/: ECONNREFUSED$/,
    );
    // Without the token the private scope is refused, and said so; the token is never printed.
    ws.write(".npmrc", `@private:registry=${registry.url}\n`);
    const refused = runCli(["outdated", "dict"], { cwd: ws.dir, env });
    assert.equal(refused.code, 1);
    assert.match(
      refused.stdout,
      /refused @private\/fixture-server \(HTTP 401\); no credential for it/,
    );
    for (const out of [r, refused]) assert.ok(!(out.stdout + out.stderr).includes(registry.token));
  });
});

describe("upgrade", () => {
  test("prints verify's report of the pin against the candidate and writes nothing (exit 1)", () => {
    const { ws, env } = project();
    const lockBefore = ws.read();
    const configBefore = ws.read(".mcp.json");
    const r = runCli(["upgrade", "dict"], { cwd: ws.dir, env });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /dict: contractpin-fixture-server 1\.0\.0 -> 1\.1\.0/);
    assert.match(r.stdout, /drift/);
    assert.match(r.stdout, /lookup/);
    assert.match(r.stdout, /define/);
    assert.match(r.stdout, /webhook/);
    const json = runCli(["upgrade", "dict", "--json"], { cwd: ws.dir, env });
    assert.equal(json.code, 1);
    const tools = JSON.parse(json.stdout).servers[0].tools.map(
      (t: { name: string; status: string }) => [t.name, t.status],
    );
    assert.deepEqual(tools.sort(), [
      ["define", "added"],
      ["lookup", "drifted"],
    ]);
    assert.equal(ws.read(), lockBefore);
    assert.equal(ws.read(".mcp.json"), configBefore);
  });

  test("--write changes the lock's command, the pin, the snapshots and .mcp.json together; verify then passes", () => {
    const { ws, env } = project();
    const r = runCli(["upgrade", "dict", "--write"], { cwd: ws.dir, env });
    assert.equal(r.code, 0, r.stderr);
    // What it pinned is reviewed as add reviews it: 1.1.0's lookup names a URL.
    assert.match(
      r.stdout,
      /^wrote contractpin\.lock\n {2}review: the rules found 1 medium in what dict serves .*\n {4}lookup\n {6}\[medium\] description-url at description: contains "https:\/\/hooks\.example\.com\/dict\."$/m,
    );
    const lock = JSON.parse(ws.read());
    assert.deepEqual(lock.servers.dict.command, ["npx", "-y", `${PKG}@1.1.0`]);
    assert.deepEqual(Object.keys(lock.servers.dict.tools).sort(), ["define", "lookup"]);
    const snapshot = ws.read("contractpin.contracts.json");
    assert.match(snapshot, /webhook/);
    assert.equal(
      ws.read(".mcp.json"),
      `{
  // the dictionary server, pinned
  "mcpServers": {
    "dict": { "command": "npx", "args": ["-y", "${PKG}@1.1.0"] }
  }
}
`,
    );
    // The Renovate recipe (examples/renovate.json) finds the version upgrade wrote.
    assert.deepEqual(recipeDeps(".mcp.json", ws.read(".mcp.json")), [
      { datasource: "npm", depName: PKG, currentValue: "1.1.0" },
    ]);
    const verify = runCli(["verify"], { cwd: ws.dir, env });
    assert.equal(verify.code, 0, verify.stdout + verify.stderr);
    // init reads the bumped config as the lock now pins it.
    const again = runCli(["upgrade", "dict"], { cwd: ws.dir, env });
    assert.equal(again.code, 0, again.stderr);
  });

  test("every format of --write says ACCEPTED and fails on nothing; without --write each says verify's FAIL", () => {
    const { ws, env } = project();
    // One run writes every format: github (the text report and annotations) to a
    // file, the terminal's verdict line, JSON, SARIF and the Markdown job summary.
    const formats = (write: boolean) => {
      const summary = ws.path(`summary-${write}.md`);
      const files = {
        out: `report-${write}.txt`,
        json: `r-${write}.json`,
        sarif: `r-${write}.sarif`,
      };
      const args = ["upgrade", "dict", "--format", "github", "--output", files.out];
      args.push("--json-file", files.json, "--sarif", files.sarif, ...(write ? ["--write"] : []));
      const r = runCli(args, { cwd: ws.dir, env: { ...env, GITHUB_STEP_SUMMARY: summary } });
      return {
        r,
        text: ws.read(files.out),
        json: JSON.parse(ws.read(files.json)),
        sarif: JSON.parse(ws.read(files.sarif)).runs[0],
        markdown: readFileSync(summary, "utf8"),
      };
    };
    const fail = /FAIL: 1 drifted of 1 server \(tools: 1 drifted, 1 added\)/;
    const before = formats(false);
    assert.equal(before.r.code, 1, before.r.stderr);
    for (const text of [before.r.stdout, before.text, before.markdown]) assert.match(text, fail);
    assert.match(before.markdown, /^## contractpin: FAIL$/m);
    assert.match(before.text, /^::error /m);
    assert.doesNotMatch(before.text + before.markdown, /ACCEPTED|accepted/);
    assert.equal(before.json.exit_code, 1);
    assert.equal(before.json.written, undefined);
    assert.equal(before.sarif.invocations[0].exitCode, 1);
    assert.ok(before.sarif.results.some((x: { level: string }) => x.level === "error"));

    const after = formats(true);
    assert.equal(after.r.code, 0, after.r.stderr);
    assert.match(after.r.stdout, /^wrote contractpin\.lock$/m);
    const accepted =
      /ACCEPTED: 1 drifted of 1 server \(tools: 1 drifted, 1 added\); written to the lock/;
    for (const text of [after.r.stdout, after.text, after.markdown]) {
      assert.match(text, accepted);
      assert.doesNotMatch(text, /FAIL|^::error /m);
    }
    assert.match(after.markdown, /^## contractpin: ACCEPTED$/m);
    // The server's row says the drift was taken, not that it failed.
    assert.match(after.markdown, /^\| ` dict ` \| 📝 accepted \| /m);
    assert.doesNotMatch(after.markdown, /❌/);
    assert.match(before.markdown, /^\| ` dict ` \| ❌ drift \| /m);
    assert.match(after.markdown, /\(accepted by upgrade --write\)/);
    // The annotations still show each finding, as warnings that say why they pass.
    assert.match(after.text, /^::warning .*\(accepted by upgrade --write\)/m);
    assert.equal(after.json.exit_code, 0);
    assert.equal(after.json.written, true);
    assert.equal(after.json.summary.servers.drift, 1);
    assert.equal(after.sarif.invocations[0].exitCode, 0);
    assert.ok(after.sarif.results.length > 0);
    for (const result of after.sarif.results) {
      assert.equal(result.level, "note");
      assert.equal(result.properties.failing, false);
    }
    assert.deepEqual(JSON.parse(ws.read()).servers.dict.command, ["npx", "-y", `${PKG}@1.1.0`]);
  });

  test("--write refuses when the candidate serves other tools when read again to be pinned; nothing written (exit 1)", () => {
    const { ws, env } = project();
    const lockBefore = ws.read();
    const configBefore = ws.read(".mcp.json");
    const snapshotBefore = ws.read("contractpin.contracts.json");
    // The candidate serves its tools once, then one more on every later start.
    ws.write("changes-after", "1");
    const r = runCli(["upgrade", "dict", "--write"], { cwd: ws.dir, env });
    assert.equal(ws.read("starts"), "2", "the candidate was not read twice");
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(
      r.stderr,
      /server dict: contractpin-fixture-server@1\.1\.0 served other tools when it was read again to be pinned; nothing was written/,
    );
    assert.doesNotMatch(r.stdout + r.stderr, /^wrote /m);
    assert.equal(ws.read(), lockBefore);
    assert.equal(ws.read(".mcp.json"), configBefore);
    assert.equal(ws.read("contractpin.contracts.json"), snapshotBefore);
  });

  test("--write --json: stdout is the JSON report alone (written: true); what was written is told on stderr", () => {
    const { ws, env } = project();
    const r = runCli(["upgrade", "dict", "--write", "--json"], { cwd: ws.dir, env });
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout);
    assert.equal(report.written, true);
    assert.equal(report.exit_code, 0);
    assert.match(r.stderr, /^wrote contractpin\.lock$/m);
    assert.match(r.stderr, /review: the rules found 1 medium in what dict serves/);
    assert.deepEqual(JSON.parse(ws.read()).servers.dict.command, ["npx", "-y", `${PKG}@1.1.0`]);
  });

  test("--write refused after the read (a --config that cannot be bumped): the report carries the refusal's exit code, nothing written", () => {
    const { ws, env } = project();
    const lockBefore = ws.read();
    const r = runCli(
      ["upgrade", "dict", "--write", "--config", "missing.json", "--json-file", "r.json"],
      { cwd: ws.dir, env },
    );
    assert.equal(r.code, 2, r.stderr);
    assert.ok(oneLine(r.stderr.replace(/^contractpin: dict: .*\n/, "")), r.stderr);
    assert.match(r.stdout, /FAIL: 1 drifted of 1 server/);
    const json = JSON.parse(ws.read("r.json"));
    assert.equal(json.exit_code, 2);
    assert.equal(json.written, undefined);
    assert.equal(ws.read(), lockBefore);
  });

  test("--write of a project config that links to a user-level one is refused as wrap refuses it; --user writes the real file", () => {
    const { ws, env } = project();
    // A clone that commits .mcp.json as a link to the user's Claude Code config.
    const user = join(env.HOME!, ".claude.json");
    renameSync(ws.path(".mcp.json"), user);
    symlinkSync(user, ws.path(".mcp.json"));
    const userBefore = readFileSync(user, "utf8");
    const lockBefore = ws.read();
    const r = runCli(["upgrade", "dict", "--write"], { cwd: ws.dir, env });
    assert.equal(r.code, 2, r.stderr);
    const refusal = r.stderr.replace(/^contractpin: dict: .*\n/, "");
    assert.ok(oneLine(refusal), r.stderr);
    assert.equal(
      refusal,
      `contractpin: ${join(realpathSync(ws.dir), ".mcp.json")} leads to ${realpathSync(user)}, a user-level config; without --user, upgrade --write rewrites only the project's configs (the project is ${realpathSync(ws.dir)}); nothing was written; run with --user if you mean to rewrite it\n`,
    );
    assert.equal(readFileSync(user, "utf8"), userBefore);
    assert.equal(ws.read(), lockBefore);
    assert.ok(!existsSync(join(env.HOME!, ".contractpin-backup")));
    // Meant: the real file is bumped, and the link stays a link.
    const meant = runCli(["upgrade", "dict", "--write", "--user"], { cwd: ws.dir, env });
    assert.equal(meant.code, 0, meant.stderr);
    assert.match(meant.stdout, new RegExp(`^bumped dict in ${realpathSync(user)}$`, "m"));
    assert.match(readFileSync(user, "utf8"), /"-y", "contractpin-fixture-server@1\.1\.0"/);
    assert.ok(lstatSync(ws.path(".mcp.json")).isSymbolicLink());
  });

  test("--write with the config wrapped: the lock is upgraded, the wrapped entry is left as the guard it is, with the way to bump it", () => {
    const { ws, env } = project();
    assert.equal(runCli(["wrap"], { cwd: ws.dir, env }).code, 0);
    const wrapped = ws.read(".mcp.json");
    const r = runCli(["upgrade", "dict", "--write"], { cwd: ws.dir, env });
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stderr,
      /^contractpin: warning: left dict in \S+\.mcp\.json: it is wrapped: its guard runs what the lock now pins, but the original kept for 'contractpin unwrap' still names the old version; to bump it too, run 'contractpin unwrap', then 'upgrade --write', then 'contractpin wrap'$/m,
    );
    assert.equal(ws.read(".mcp.json"), wrapped);
    assert.deepEqual(JSON.parse(ws.read()).servers.dict.command, ["npx", "-y", `${PKG}@1.1.0`]);
  });

  test("a version that does not exist: exit 1 with the reason, nothing written", () => {
    const { ws, env } = project();
    const lockBefore = ws.read();
    const r = runCli(["upgrade", "dict", "--to", "9.9.9", "--write"], { cwd: ws.dir, env });
    assert.equal(r.code, 1);
    assert.match(
      r.stdout,
      /contractpin-fixture-server@9\.9\.9 is not on http:\/\/127\.0\.0\.1:\d+\//,
    );
    assert.match(r.stderr, /nothing was written/);
    assert.equal(ws.read(), lockBefore);
  });

  test("--to the pinned contract's own version again is nothing to do; a bad --to is exit 2", () => {
    const { ws, env } = project();
    const same = runCli(["upgrade", "dict", "--to", "1.0.0"], { cwd: ws.dir, env });
    assert.equal(same.code, 0, same.stderr);
    const bad = runCli(["upgrade", "dict", "--to", "latest; rm -rf /"], { cwd: ws.dir, env });
    assert.equal(bad.code, 2);
    assert.ok(oneLine(bad.stderr), bad.stderr);
  });

  test("--all --write takes every outdated server; a candidate whose registry is unreachable writes nothing", () => {
    const { ws, env } = project();
    const r = runCli(["upgrade", "--all", "--write", "--format", "markdown"], { cwd: ws.dir, env });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /define/);
    // The pull request's body says which version each server goes to.
    assert.ok(
      r.stdout.includes(
        `### Version bumps\n\n| Server | Package | From | To |\n|---|---|---|---|\n| \` dict \` | \` ${PKG} \` | \` 1.0.0 \` | \` 1.1.0 \` |\n`,
      ),
      r.stdout,
    );
    assert.deepEqual(JSON.parse(ws.read()).servers.dict.command, ["npx", "-y", `${PKG}@1.1.0`]);
    const offline = project();
    writeFileSync(join(offline.env.HOME!, ".npmrc"), `registry=${down}\n`);
    const lockBefore = offline.ws.read();
    const d = runCli(["upgrade", "--all", "--write"], { cwd: offline.ws.dir, env: offline.env });
    assert.equal(d.code, 1, d.stderr);
    assert.match(d.stdout, /ECONNREFUSED/);
    assert.equal(offline.ws.read(), lockBefore);
    assert.equal(readFileSync(offline.ws.path(".mcp.json"), "utf8").includes("@1.0.0"), true);
  });
});
