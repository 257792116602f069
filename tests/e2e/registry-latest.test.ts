import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { runCli } from "../helpers/cli.js";
import { cleanUp } from "../helpers/cleanup.js";
import { imageProject } from "../helpers/image-project.js";
import { startRegistry, type LocalRegistry } from "../helpers/registry.js";

// A real npm registry (verdaccio) whose stored metadata says `latest` is a
// version it does not list: npm's own commands refuse to tag a missing
// version, so the store is edited, and verdaccio serves it as it is.
const PKG = "contractpin-latest-fault";
const KEYED = "contractpin-keyed-server";
let registry: LocalRegistry;

before(async () => {
  registry = await startRegistry();
  registry.publish(PKG, "1.0.0", "1.0.0");
  registry.publish(PKG, "1.1.0", "1.1.0");
  registry.editMetadata(PKG, (doc) => {
    doc["dist-tags"]["latest"] = "9.9.9";
  });
  registry.publish(KEYED, "1.0.0", "1.0.0");
  registry.publish(KEYED, "1.1.0", "1.1.0");
});
after(() => cleanUp());

test("outdated and upgrade both call a 'latest' the registry does not list its fault: one line, exit 1, never 'newer'", () => {
  const ws = imageProject({ dict: { command: ["npx", "-y", `${PKG}@1.0.0`] } });
  const home = ws.path("home");
  mkdirSync(home);
  writeFileSync(join(home, ".npmrc"), `registry=${registry.url}\n`);
  const env = { HOME: home, npm_config_userconfig: "", npm_config_registry: "" };
  const fault = `registry ${registry.url}: its 'latest' tag of ${PKG} names 9.9.9, which is not a version it lists`;

  const outdated = runCli(["outdated"], { cwd: ws.dir, env });
  assert.equal(outdated.code, 1, outdated.stderr);
  assert.equal(outdated.stdout, `dict: ${PKG} not checked: ${fault}\n`);

  const lock = ws.read();
  const upgrade = runCli(["upgrade", "dict", "--write"], { cwd: ws.dir, env });
  assert.equal(upgrade.code, 1, upgrade.stderr);
  assert.ok(upgrade.stdout.includes(fault), upgrade.stdout);
  assert.ok(!upgrade.stdout.includes("9.9.9 is not on"), upgrade.stdout);
  assert.equal(ws.read(), lock, "nothing written");
});

test("outdated asks the registry of a server whose API key is not set; an unset entry that chooses the registry still refuses", () => {
  const ws = imageProject({
    keyed: {
      command: ["npx", "-y", `${KEYED}@1.0.0`],
      env: { TAVILY_API_KEY: "${CP_TEST_TAVILY_KEY}" },
    },
    chosen: {
      command: ["npx", "-y", `${KEYED}@1.0.0`],
      env: { npm_config_registry: "${CP_TEST_REGISTRY}" },
    },
  });
  const home = ws.path("home");
  mkdirSync(home);
  writeFileSync(join(home, ".npmrc"), `registry=${registry.url}\n`);
  const env = {
    HOME: home,
    npm_config_userconfig: "",
    npm_config_registry: "",
    CP_TEST_TAVILY_KEY: undefined,
    CP_TEST_REGISTRY: undefined,
  };
  const keyed = runCli(["outdated", "keyed"], { cwd: ws.dir, env });
  assert.equal(keyed.code, 1, keyed.stderr);
  assert.match(keyed.stdout, /^keyed: contractpin-keyed-server 1\.0\.0 .*1\.1\.0/m);
  assert.ok(!keyed.stdout.includes("not set"), keyed.stdout);
  const chosen = runCli(["outdated", "chosen"], { cwd: ws.dir, env });
  assert.equal(chosen.code, 1, chosen.stderr);
  assert.match(chosen.stdout + chosen.stderr, /CP_TEST_REGISTRY is not set/);
  assert.ok(!/1\.1\.0/.test(chosen.stdout), chosen.stdout);
});
