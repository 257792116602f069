import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { importConfig } from "../../src/config/import-config.js";
import { runnerPackage } from "../../src/config/package-runner.js";
import {
  customManagers,
  recipe,
  recipeDeps,
  recipeReads,
  type RecipeDep,
} from "../helpers/renovate-recipe.js";

// examples/renovate.json's regexes against config files, each checked two
// ways: against the list written out here, and against what contractpin's own
// reader makes of the same file (importConfig, then runnerPackage: the npm
// package and exact version each stdio server runs), so that the recipe
// proposes a bump for exactly the servers `outdated` would look up.
const FIXTURES = fileURLToPath(new URL("../fixtures/", import.meta.url));
const CTX = { projectDir: "/work/project", home: "/home/ada" };

const sorted = (deps: RecipeDep[]) =>
  deps
    .map((d) => `${d.depName}@${d.currentValue}`)
    .sort()
    .join(" ");

/**
 * What contractpin reads in the file: each imported stdio server's pinned npm
 * package; `skipped` names the servers it did not import.
 */
function contractpinReads(
  path: string,
  text: string,
  env: Record<string, string>,
): { deps: RecipeDep[]; skipped: string[] } {
  const imported = importConfig(new TextEncoder().encode(text), path, { ...CTX, env });
  const skipped = imported.skipped.map((s) => s.name);
  const deps = imported.servers.flatMap(({ source }) => {
    if (source.transport !== "stdio") return [];
    const pkg = runnerPackage(source.command);
    if (pkg?.ecosystem !== "npm" || pkg.version === undefined) return [];
    return [{ depName: pkg.name, currentValue: pkg.version }];
  });
  return { deps, skipped };
}

describe("the Renovate recipe's regexes", () => {
  const cases: Array<[string, string]> = [
    [
      ".mcp.json",
      // npx, npm exec --, pnpm dlx with args before command; not uvx, node, docker,
      // an unpinned package, a URL, or version-like strings in env values.
      "@acme/fixture-server@3.0.0 @private/fixture-server@2.0.0-beta.1 contractpin-fixture-server@1.0.0",
    ],
    [".vscode/mcp.json", "@acme/fixture-server@3.1.0 contractpin-fixture-server@1.1.0"],
    [
      ".cursor/mcp.json",
      "@acme/fixture-server@3.0.0 @acme/fixture-server@3.0.0 contractpin-fixture-server@1.0.0",
    ],
    [".zed/settings.json", "@acme/fixture-server@3.0.0 contractpin-fixture-server@1.0.0"],
    [
      ".continue/mcpServers/servers.yaml",
      "@acme/fixture-server@3.0.0 @private/fixture-server@2.0.0 contractpin-fixture-server@1.0.0",
    ],
    [".continue/mcpServers/servers.json", "@private/fixture-server@2.0.0"],
  ];
  for (const [path, expected] of cases) {
    it(`find every pinned npm server in ${path}, and nothing else`, () => {
      const text = readFileSync(`${FIXTURES}renovate/${path}`, "utf8");
      assert.equal(sorted(recipeDeps(path, text)), expected);
      const read = contractpinReads(path, text, { CONTRACTPIN_INPUT_TOK: "x" });
      assert.deepEqual(read.skipped, []);
      assert.equal(sorted(read.deps), expected);
    });
  }

  it("agree with contractpin's reader on the project configs of the import tests", () => {
    // .mcp.json pins @stripe/mcp, .vscode/mcp.json @playwright/mcp; .cursor/mcp.json pins none.
    for (const path of [".mcp.json", ".vscode/mcp.json", ".cursor/mcp.json"]) {
      const text = readFileSync(`${FIXTURES}configs/project/${path}`, "utf8");
      const found = sorted(recipeDeps(path, text));
      const env = { CONTRACTPIN_INPUT_PERPLEXITY_KEY: "x" };
      assert.equal(found, sorted(contractpinReads(path, text, env).deps), path);
    }
  });

  it("read the project configs contractpin reads, wherever they are", () => {
    for (const path of [
      ".mcp.json",
      ".vscode/mcp.json",
      ".cursor/mcp.json",
      ".zed/settings.json",
      ".continue/mcpServers/servers.yaml",
      ".continue/mcpServers/servers.yml",
      ".continue/mcpServers/servers.json",
      "packages/app/.mcp.json",
    ]) {
      assert.ok(recipeReads(path), path);
    }
    for (const path of [
      "x.mcp.json",
      ".mcp.json.bak",
      ".vscode/settings.json",
      ".zed/tasks.json",
      ".continue/config.yaml",
      ".continue/mcpServers/old/servers.yaml",
    ]) {
      assert.ok(!recipeReads(path), path);
    }
  });

  it("give their own dependency type, the only one the re-pin rule matches", () => {
    const tasks = recipe().packageRules.filter((r) => r.postUpgradeTasks !== undefined);
    assert.deepEqual(
      tasks.map((r) => r.matchDepTypes),
      [["mcp-server"]],
    );
    for (const m of customManagers()) assert.equal(m.depTypeTemplate, "mcp-server");
  });

  it("use only what RE2 (Renovate's regex engine) accepts: no lookaround, no backreference", () => {
    for (const m of customManagers()) {
      assert.equal(m.datasourceTemplate, "npm");
      for (const source of m.matchStrings) {
        assert.doesNotMatch(source, /\(\?<?[=!]|\\[1-9]|\\k</);
        new RegExp(source, "g");
      }
    }
  });
});
