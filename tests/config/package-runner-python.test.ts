import assert from "node:assert/strict";
import { test } from "node:test";
import { runnerOptions, runnerPackage, withVersion } from "../../src/core/source/package-runner.js";

const bump = (command: string[], version: string) =>
  withVersion(command, runnerPackage(command)!, version);

test("withVersion keeps the separator a Python spec was written with", () => {
  assert.deepEqual(bump(["uvx", "mcp-server-fetch@1.0.0", "--x"], "1.1.0"), [
    "uvx",
    "mcp-server-fetch@1.1.0",
    "--x",
  ]);
  assert.deepEqual(bump(["uvx", "--from", "pkg==1.0", "cmd"], "2.0"), [
    "uvx",
    "--from",
    "pkg==2.0",
    "cmd",
  ]);
  assert.deepEqual(bump(["uvx", "--from=pkg[cli]===1.0", "cmd"], "2.0"), [
    "uvx",
    "--from=pkg[cli]===2.0",
    "cmd",
  ]);
  assert.deepEqual(bump(["uv", "tool", "run", "pkg[cli]@1.0"], "2.0"), [
    "uv",
    "tool",
    "run",
    "pkg[cli]@2.0",
  ]);
  assert.deepEqual(bump(["pipx", "run", "--spec", "pkg==1.0", "pkg"], "1.1"), [
    "pipx",
    "run",
    "--spec",
    "pkg==1.1",
    "pkg",
  ]);
  // Unpinned: uvx's own `@` (a long name==version can pass for a token), pipx's `==`.
  assert.deepEqual(bump(["uvx", "pkg"], "1.1"), ["uvx", "pkg@1.1"]);
  assert.deepEqual(bump(["uvx", "pkg@latest"], "1.1"), ["uvx", "pkg@1.1"]);
  assert.deepEqual(bump(["pipx", "run", "--spec", "pkg", "pkg"], "1.1"), [
    "pipx",
    "run",
    "--spec",
    "pkg==1.1",
    "pkg",
  ]);
});

test("runnerOptions: the runner's own options and their values, before what it runs", () => {
  assert.deepEqual(runnerOptions(["uvx", "--index", "http://i/", "pkg@1", "--index", "no"]), [
    "--index",
    "http://i/",
  ]);
  assert.deepEqual(runnerOptions(["uvx", "--index-strategy", "unsafe-best-match", "pkg@1"]), [
    "--index-strategy",
    "unsafe-best-match",
  ]);
  assert.deepEqual(
    runnerOptions(["uv", "tool", "run", "--from", "p==1", "-i", "http://i/", "cmd", "-i", "x"]),
    ["--from", "p==1", "-i", "http://i/"],
  );
  assert.deepEqual(
    runnerOptions(["pipx", "run", "--pip-args=--pre", "--spec", "p==1", "app", "--spec"]),
    ["--pip-args=--pre", "--spec", "p==1"],
  );
  assert.deepEqual(runnerOptions(["node", "server.js"]), []);
  // A value option the runner takes is not the package (it was before --index-strategy was known).
  assert.equal(
    runnerPackage(["uvx", "--index-strategy", "unsafe-best-match", "pkg@1.0"])!.name,
    "pkg",
  );
});
