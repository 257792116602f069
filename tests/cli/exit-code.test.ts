// The one map from error codes to exit codes (src/cli/exit-code.ts): every
// code has a decision, the server's and registry's failures are 1, and
// everything else contractpin raises is 2. The type makes the map
// exhaustive; this test also holds it to every code the source throws.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { EXIT_FOR_CODE, exitForCode, exitForError } from "../../src/cli/exit-code.js";
import { ContractpinError } from "../../src/core/errors.js";

const SRC = new URL("../../src/", import.meta.url).pathname;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? sources(join(dir, e.name))
      : e.name.endsWith(".ts")
        ? [join(dir, e.name)]
        : [],
  );
}

describe("exit codes of error codes", () => {
  it("the server's, the login's and the registry's failures are 1; the rest 2", () => {
    const one = Object.entries(EXIT_FOR_CODE)
      .filter(([, code]) => code === 1)
      .map(([name]) => name)
      .sort();
    assert.deepEqual(one, [
      "AUTH_FAILED",
      "AUTH_REQUIRED",
      "REGISTRY_UNREACHABLE",
      "SERVER_UNREADABLE",
    ]);
    for (const code of Object.values(EXIT_FOR_CODE)) assert.ok(code === 1 || code === 2);
  });

  it("every code declared in errors.ts, and every code thrown in src/, has its decision", () => {
    const declared = readFileSync(join(SRC, "core/errors.ts"), "utf8")
      .split(/^export /m)
      .filter((block) => /^type \w+Code\b/.test(block))
      .flatMap((block) => [...block.matchAll(/"([A-Z0-9_]+)"/g)].map((m) => m[1]!));
    assert.ok(declared.length > 40, `read ${declared.length} codes`);
    assert.deepEqual([...new Set(declared)].sort(), Object.keys(EXIT_FOR_CODE).sort());
    const thrown = new Set<string>();
    for (const file of sources(SRC)) {
      const text = readFileSync(file, "utf8");
      for (const m of text.matchAll(/ContractpinError(?:<[^>]*>)?\(\s*"([A-Z0-9_]+)"/g))
        thrown.add(m[1]!);
    }
    assert.ok(thrown.size > 30, `found ${thrown.size} thrown codes`);
    for (const code of thrown) assert.ok(Object.hasOwn(EXIT_FOR_CODE, code), code);
  });

  it("exitForError: a known code, a code from outside the union, and a bug", () => {
    const unreadable = new ContractpinError("SERVER_UNREADABLE", "it \u001b[31mfailed");
    (unreadable as { detail?: string[] }).detail = ["last\u0007 line"];
    const r = exitForError(unreadable, false);
    assert.equal(r.code, 1);
    assert.ok(!r.message.includes("\u0007") && !r.message.includes("\u001b"), r.message);
    assert.match(r.message, /^contractpin: it .*failed\n {2}\| last.* line$/);
    assert.equal(exitForError(new ContractpinError("LOCK_CORRUPT", "x"), false).code, 2);
    assert.equal(exitForError(new ContractpinError<string>("SOMETHING_ELSE", "x"), false).code, 2);
    assert.equal(exitForCode("toString"), 2);
    const bug = exitForError(new TypeError("oops"), false);
    assert.equal(bug.code, 2);
    assert.match(bug.message, /^contractpin: internal error: oops \(set CONTRACTPIN_DEBUG=1/);
  });
});
