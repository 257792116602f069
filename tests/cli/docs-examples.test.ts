// No example runs contractpin fetched by name from a registry (issue 24):
// contractpin is not published, so `npx -y contractpin` fails today and,
// the day anyone registers the name, runs a stranger's package every time a
// client starts the server. Examples run the project's installed copy.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";

const ROOT = new URL("../../", import.meta.url).pathname;

/** The files a user copies commands from: docs, examples, the Action, the hooks, --help. */
function exampleFiles(): string[] {
  const inDir = (dir: string, ext: RegExp) =>
    readdirSync(join(ROOT, dir))
      .filter((f) => ext.test(f))
      .map((f) => join(dir, f));
  return [
    "README.md",
    "SPEC.md",
    "action.yml",
    ".pre-commit-hooks.yaml",
    ...inDir("docs", /\.md$/),
    ...inDir("examples", /\.(?:json|ya?ml|mjs|md|sh)$/),
    ...inDir("scripts", /\.(?:sh|mjs)$/),
    ...inDir("src/cli/commands", /\.ts$/),
  ];
}

/** Ways of running a package fetched by name (an exact version is no better: anyone may own the name). */
const FETCHED = [
  /\bnpx\s+(?:-y|--yes)\s+contractpin\b/,
  /\bnpx\s+(?:--\S+\s+)*contractpin@/,
  /"(?:-y|--yes)",\s*"contractpin(?:@[^"]*)?"/,
  /\bnpm\s+exec\s+(?:--\S+\s+)*contractpin@/,
  /\b(?:pnpm\s+dlx|bunx|pnpx)\s+contractpin\b/,
];

// A teammate who commits the lock alone gets no diff from verify and an audit
// that cannot run (issue 37): every commit line names the snapshots too.
describe("every commit line names the lock and its snapshots", () => {
  for (const file of exampleFiles()) {
    it(file, () => {
      const lines = readFileSync(join(ROOT, file), "utf8").split("\n");
      const found = lines
        .map((line, i) => ({ line, at: i + 1 }))
        .filter(
          ({ line }) => /\bgit add\b.*\.lock\b/.test(line) && !/\.contracts\.json\b/.test(line),
        );
      assert.deepEqual(
        found.map(({ line, at }) => `${file}:${at}: ${line.trim()}`),
        [],
      );
    });
  }
});

// docs/ci.md asks to reference every action by a full commit SHA; the examples do as they say.
describe("every action an example uses is pinned by a full commit SHA", () => {
  for (const file of exampleFiles()) {
    it(file, () => {
      const lines = readFileSync(join(ROOT, file), "utf8").split("\n");
      const found = lines
        .map((line, i) => ({ line, at: i + 1 }))
        .filter(({ line }) => /^\s*-?\s*uses:\s/.test(line))
        .filter(({ line }) => !/@[0-9a-f]{40}\b|@<full commit SHA>/.test(line));
      assert.deepEqual(
        found.map(({ line, at }) => `${file}:${at}: ${line.trim()}`),
        [],
      );
    });
  }
});

describe("examples run the installed contractpin, never one fetched by name", () => {
  for (const file of exampleFiles()) {
    it(file, () => {
      const lines = readFileSync(join(ROOT, file), "utf8").split("\n");
      const found = lines
        .map((line, i) => ({ line, at: i + 1 }))
        .filter(({ line }) => FETCHED.some((p) => p.test(line)));
      assert.deepEqual(
        found.map(({ line, at }) => `${file}:${at}: ${line.trim()}`),
        [],
      );
    });
  }
  it("the patterns catch the forms they are for", () => {
    for (const bad of [
      "npx -y contractpin guard memory",
      "npx contractpin@0.1.0 verify",
      '"args": ["-y", "contractpin", "guard"]',
      "pnpm dlx contractpin verify",
    ])
      assert.ok(
        FETCHED.some((p) => p.test(bad)),
        bad,
      );
    for (const good of ["npx --no contractpin guard memory", "npx contractpin verify"])
      assert.ok(!FETCHED.some((p) => p.test(good)), good);
  });
});
