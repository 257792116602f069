// The README keeps what a newcomer needs and links to the reference in docs/:
// every relative link of the README, SPEC.md and docs/*.md names a file that
// exists, and an anchor that one of its headings makes (as GitHub makes them).
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { it } from "node:test";
import { ROOT } from "../helpers/cli.js";

/** GitHub's anchor of a heading: lower case, punctuation but `-` and `_` dropped, spaces as `-`. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_\- ]/gu, "")
    .replaceAll(" ", "-");
}

function anchors(file: string): Set<string> {
  const text = readFileSync(join(ROOT, file), "utf8");
  return new Set([...text.matchAll(/^#{1,6} (.*)$/gm)].map((m) => slug(m[1]!)));
}

const files = [
  "README.md",
  "SPEC.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

it("every relative link in the README, SPEC.md and docs/ leads to a file and a heading that exist", () => {
  const broken: string[] = [];
  for (const file of files) {
    const text = readFileSync(join(ROOT, file), "utf8").replace(/```[\s\S]*?```/g, "");
    for (const [, url] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(url!)) continue;
      const [path, fragment] = url!.split("#", 2) as [string, string | undefined];
      const target = path === "" ? file : normalize(join(dirname(file), path));
      if (!existsSync(join(ROOT, target))) broken.push(`${file}: ${url} (no such file)`);
      else if (fragment && target.endsWith(".md") && !anchors(target).has(fragment))
        broken.push(`${file}: ${url} (no such heading)`);
    }
  }
  assert.deepEqual(broken, []);
});

it("the README is a few hundred lines: the reference lives in docs/", () => {
  const lines = readFileSync(join(ROOT, "README.md"), "utf8").split("\n").length;
  assert.ok(lines <= 400, `README.md has ${lines} lines`);
});

it("every source or test file the README, SPEC.md and docs/ name in code spans exists", () => {
  const missing: string[] = [];
  for (const file of files) {
    const text = readFileSync(join(ROOT, file), "utf8");
    for (const [, path] of text.matchAll(
      /`((?:src|tests|bench|scripts)\/[\w./-]+\.(?:ts|mjs|cts|py))`/g,
    ))
      if (!existsSync(join(ROOT, path!))) missing.push(`${file}: ${path}`);
  }
  assert.deepEqual(missing, []);
});
