// The launcher runs quick commands with V8's optimizing compiler off, and
// turns it on for every other command and for a quick one with a large input
// (src/cli/jit.ts). Seen through --trace-opt, which names every function
// TurboFan compiles (the flag makes V8 reject the code cache: no matter here).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { LARGE_INPUT_TOOLS } from "../../src/cli/jit.js";
import { tempDir } from "../helpers/cleanup.js";
import { CLI, runCli } from "../helpers/cli.js";

const dir = tempDir("contractpin-jit-");

/** `contractpin ARGS` under --trace-opt: its exit code, and how many functions TurboFan compiled. */
function traced(args: string[]): { code: number | null; optimized: number } {
  const r = spawnSync(process.execPath, ["--trace-opt", CLI, ...args], {
    cwd: dir,
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
  });
  return {
    code: r.status,
    optimized: (r.stdout.match(/^\[compiling method .*\(target TURBOFAN\)/gm) ?? []).length,
  };
}

/** A dump of `n` tools, pinned as server `name` in `name.lock`. */
function pinned(name: string, n: number): void {
  const tools = Array.from({ length: n }, (_, i) => ({
    name: `tool_${i}`,
    description: `Reads record ${i} of the table and returns it with its history.`,
    inputSchema: {
      type: "object",
      properties: { id: { type: "string", maxLength: 64 }, depth: { type: "integer" } },
      required: ["id"],
    },
    annotations: { readOnlyHint: true },
  }));
  writeFileSync(join(dir, `${name}.json`), JSON.stringify({ tools }));
  const r = runCli(["add", name, "--file", `${name}.json`, "--lock", `${name}.lock`], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
}

describe("the optimizing compiler", () => {
  before(() => {
    pinned("small", 100);
    pinned("large", LARGE_INPUT_TOOLS);
  });

  it("stays off for verify of a small lock", () => {
    assert.deepEqual(traced(["verify", "--lock", "small.lock"]), { code: 0, optimized: 0 });
  });

  it(`is on for verify of a lock of ${LARGE_INPUT_TOOLS} tools or more`, () => {
    const r = traced(["verify", "--lock", "large.lock"]);
    assert.equal(r.code, 0);
    assert.ok(r.optimized > 0, "TurboFan compiled nothing");
  });

  it("is on for the other commands, whatever their input", () => {
    const r = traced(["digest", "large.json"]);
    assert.equal(r.code, 0);
    assert.ok(r.optimized > 0, "TurboFan compiled nothing");
  });
});
