import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { runnerPackage, withVersion } from "../../src/core/source/package-runner.js";
import { authorizationFor, loadNpmConfig, registryFor } from "../../src/registry/npmrc.js";
import { compareVersions } from "../../src/registry/versions.js";
import { tempDir } from "../helpers/cleanup.js";

test("npm's layers: env over project over user over global; a scope's registry over the default", () => {
  const dir = tempDir();
  const project = join(dir, "project");
  mkdirSync(join(project, "sub"), { recursive: true });
  writeFileSync(join(project, "package.json"), "{}");
  // The project's .npmrc is the one beside package.json, found from a sub-folder.
  writeFileSync(
    join(project, ".npmrc"),
    "@acme:registry = https://npm.acme.test/team/\n; comment\n",
  );
  writeFileSync(
    join(dir, "user"),
    "registry=https://user.test/\n@acme:registry=https://wrong.test/\n",
  );
  writeFileSync(
    join(dir, "global"),
    "registry=https://global.test/\n//npm.acme.test/:_authToken=${ACME}\n",
  );
  const env = {
    npm_config_userconfig: join(dir, "user"),
    npm_config_globalconfig: join(dir, "global"),
    ACME: "t0k",
  };
  const config = loadNpmConfig(join(project, "sub"), env, dir);
  assert.equal(registryFor(config, "@acme/tool"), "https://npm.acme.test/team/");
  assert.equal(registryFor(config, "plain"), "https://user.test/");
  // The token of //npm.acme.test/ serves every path below it; ${ACME} is expanded.
  assert.equal(authorizationFor(config, "https://npm.acme.test/team/"), "Bearer t0k");
  assert.equal(authorizationFor(config, "https://user.test/"), undefined);
  const fromEnv = loadNpmConfig(project, { ...env, NPM_CONFIG_REGISTRY: "https://env.test" }, dir);
  assert.equal(registryFor(fromEnv, "plain"), "https://env.test/");
});

test("username and _password (base64) are sent as Basic auth; the longest matching path wins", () => {
  const dir = tempDir();
  const rc = join(dir, "rc");
  const password = Buffer.from("s3cret").toString("base64");
  writeFileSync(
    rc,
    `//reg.test/:_authToken=outer\n//reg.test/npm/private/:username=bob\n//reg.test/npm/private/:_password=${password}\n`,
  );
  const config = loadNpmConfig(
    dir,
    { npm_config_userconfig: rc, npm_config_globalconfig: rc },
    dir,
  );
  assert.equal(
    authorizationFor(config, "https://reg.test/npm/private/"),
    `Basic ${Buffer.from("bob:s3cret").toString("base64")}`,
  );
  assert.equal(authorizationFor(config, "https://reg.test/npm/other/"), "Bearer outer");
});

test("semver precedence: numbers by value, a pre-release below its release", () => {
  const sorted = ["1.10.0", "1.2.0", "1.2.0-rc.1", "1.2.0-beta.11", "1.2.0-beta.2", "0.9.9"].sort(
    compareVersions,
  );
  assert.deepEqual(sorted, [
    "0.9.9",
    "1.2.0-beta.2",
    "1.2.0-beta.11",
    "1.2.0-rc.1",
    "1.2.0",
    "1.10.0",
  ]);
});

test("runnerPackage finds the spec and its version; withVersion changes only that argument", () => {
  const npx = [
    "npx",
    "-y",
    "--registry",
    "https://r.test/",
    "@scope/srv@1.2.3",
    "--root",
    "x@9.9.9",
  ];
  const pkg = runnerPackage(npx)!;
  assert.equal(pkg.name, "@scope/srv");
  assert.equal(pkg.version, "1.2.3");
  assert.equal(pkg.registry, "https://r.test/");
  assert.deepEqual(withVersion(npx, pkg, "2.0.0"), [
    "npx",
    "-y",
    "--registry",
    "https://r.test/",
    "@scope/srv@2.0.0",
    "--root",
    "x@9.9.9",
  ]);
  const named = ["npm", "exec", "--package=srv@1.0.0", "--", "srv-bin"];
  const p2 = runnerPackage(named)!;
  assert.deepEqual(withVersion(named, p2, "1.1.0"), [
    "npm",
    "exec",
    "--package=srv@1.1.0",
    "--",
    "srv-bin",
  ]);
  assert.equal(runnerPackage(["npx", "-y", "srv@^1"])!.version, undefined);
  assert.equal(runnerPackage(["npx", "./local"]), undefined);
  assert.equal(runnerPackage(["node", "server.js"]), undefined);
});
