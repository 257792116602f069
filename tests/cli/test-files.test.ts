// Every test file is run by the README's test command: a file the script's
// globs do not match passes CI without ever running (tests/core/findings/ was
// such a folder until the script named its depth).
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { it } from "node:test";
import { ROOT } from "../helpers/cli.js";

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "fixtures" ? [] : testFiles(path);
    return entry.name.endsWith(".test.ts") ? [relative(ROOT, path)] : [];
  });
}

/** A shell glob of the script (only `*`, which matches within one path segment) as a RegExp. */
function globRegExp(glob: string): RegExp {
  const body = glob
    .split("*")
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
    .join("[^/]*");
  return new RegExp(`^${body}$`);
}

it("npm test runs every *.test.ts under tests/", () => {
  const { scripts } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
    scripts: Record<string, string>;
  };
  const globs = scripts["test"]!.split(/\s+/).filter((word) => word.endsWith(".test.ts"));
  assert.ok(globs.length > 0, scripts["test"]);
  const patterns = globs.map(globRegExp);
  const files = testFiles(join(ROOT, "tests"));
  assert.ok(files.length > 50, `found only ${files.length} test files`);
  const missed = files.filter((file) => !patterns.some((p) => p.test(file)));
  assert.deepEqual(missed, [], `not run by 'npm test': ${missed.join(", ")}`);
});
