// The `contractpin` command runs the CLI bundle through V8's code cache
// (src/cli/launch.cts). The cache only saves time: with it, without it, or
// with one V8 rejects, the command must do exactly the same.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type * as vm from "node:vm";
import { CLI, ROOT, runCli } from "../helpers/cli.js";
import { SERVERS } from "../helpers/servers.js";
import { Workspace } from "../helpers/workspace.js";

const BIN = join(ROOT, "dist/bin");
const launcher = createRequire(import.meta.url)(CLI) as {
  compileCli(useCache: boolean, cache?: string): vm.Script;
  CACHE: string;
  GUARD_CACHE: string;
};

describe("the code cache", () => {
  const ws = new Workspace();
  let expected: string;

  before(() => {
    const dump = join(ROOT, "examples/server-memory.tools.json");
    const added = runCli(["add", "memory", "--file", dump, "--lock", ws.path("contractpin.lock")]);
    assert.equal(added.code, 0, added.stderr);
    const verified = runCli(["verify", "--lock", ws.path("contractpin.lock")]);
    assert.equal(verified.code, 0, verified.stderr);
    expected = verified.stdout;
    assert.match(expected, /OK: 1 server matches the lock/);
  });
  after(() => rmSync(ws.dir, { recursive: true, force: true }));

  it("is built beside the bundle, and this Node.js accepts it", () => {
    assert.equal(launcher.CACHE, join(BIN, "cli.v8cache"));
    assert.ok(readFileSync(launcher.CACHE).length > 10_000);
    const script = launcher.compileCli(true);
    assert.equal(script.cachedDataRejected, false);
    assert.equal(launcher.compileCli(false).cachedDataRejected, undefined);
  });

  it("has a second one from a guard session, beside it, that this Node.js accepts", () => {
    assert.equal(launcher.GUARD_CACHE, join(BIN, "guard.v8cache"));
    const guard = readFileSync(launcher.GUARD_CACHE);
    assert.ok(guard.length > 10_000);
    // Another sample run compiles other functions: not a copy of verify's.
    assert.notDeepEqual(guard, readFileSync(launcher.CACHE));
    assert.equal(launcher.compileCli(true, launcher.GUARD_CACHE).cachedDataRejected, false);
  });

  it("without the guard's cache, a guard compiles with verify's", () => {
    const dir = ws.path("no-guard-cache");
    mkdirSync(dir);
    for (const file of ["contractpin.cjs", "cli.cjs", "cli.v8cache"])
      copyFileSync(join(BIN, file), join(dir, file));
    const copy = createRequire(import.meta.url)(join(dir, "contractpin.cjs")) as typeof launcher;
    const script = copy.compileCli(true, copy.GUARD_CACHE);
    assert.equal(script.cachedDataRejected, false, "verify's cache was given and accepted");
  });

  /** A copy of the launcher and bundle, with `cache` as its code cache (none when undefined). */
  function copyBin(name: string, cache: Uint8Array | undefined): string {
    const dir = ws.path(name);
    mkdirSync(dir);
    copyFileSync(join(BIN, "contractpin.cjs"), join(dir, "contractpin.cjs"));
    copyFileSync(join(BIN, "cli.cjs"), join(dir, "cli.cjs"));
    if (cache !== undefined) writeFileSync(join(dir, "cli.v8cache"), cache);
    return join(dir, "contractpin.cjs");
  }

  const variants: [string, () => Uint8Array | undefined][] = [
    ["is missing", () => undefined],
    ["is garbage", () => Buffer.from("not a V8 code cache at all ".repeat(100))],
    ["is cut short", () => readFileSync(launcher.CACHE).subarray(0, 1000)],
    ["is empty", () => new Uint8Array(0)],
  ];
  for (const [what, cache] of variants) {
    it(`when it ${what}, the command works the same`, () => {
      const bin = copyBin(what.replace(/ /g, "-"), cache());
      const r = spawnSync(
        process.execPath,
        [bin, "verify", "--lock", ws.path("contractpin.lock")],
        {
          encoding: "utf8",
          env: { ...process.env, NO_COLOR: undefined },
        },
      );
      assert.equal(r.status, 0, r.stderr);
      assert.equal(r.stdout, expected);
      assert.equal(r.stderr, "");
    });
  }
});

describe("the MCP client library", () => {
  const ws = new Workspace();
  after(() => rmSync(ws.dir, { recursive: true, force: true }));

  /** verify under a hook that reports every require of an @modelcontextprotocol package. */
  function verifyReportingLoads(lock: string): { code: number | null; loaded: string[] } {
    const hook = join(ROOT, "tests/fixtures/mcp-load-hook.cjs");
    const r = spawnSync(process.execPath, ["--require", hook, CLI, "verify", "--lock", lock], {
      encoding: "utf8",
      timeout: 60_000,
    });
    return { code: r.status, loaded: r.stderr.match(/^LOADED .*/gm) ?? [] };
  }

  it("is loaded by a verify of a stdio server (the hook sees it)", () => {
    const lock = ws.path("live.lock");
    const added = runCli([
      "add",
      "fake",
      "--lock",
      lock,
      "--",
      process.execPath,
      SERVERS.fakeStdio,
    ]);
    assert.equal(added.code, 0, added.stderr);
    const r = verifyReportingLoads(lock);
    assert.equal(r.code, 0);
    assert.ok(
      r.loaded.some((l) => l.includes("@modelcontextprotocol/client")),
      String(r.loaded),
    );
  });

  it("is never loaded by a verify of file servers only", () => {
    const lock = ws.path("file.lock");
    const dump = join(ROOT, "examples/server-memory.tools.json");
    assert.equal(runCli(["add", "memory", "--file", dump, "--lock", lock]).code, 0);
    const r = verifyReportingLoads(lock);
    assert.equal(r.code, 0);
    assert.deepEqual(r.loaded, []);
  });
});
