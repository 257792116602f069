import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { importConfig } from "../../src/config/import-config.js";
import {
  runnerPackage,
  VALUE_OPTIONS,
  type Ecosystem,
} from "../../src/core/source/package-runner.js";
import {
  customManagers,
  recipe,
  recipeDeps,
  recipeReads,
  type RecipeDep,
} from "../helpers/renovate-recipe.js";

// examples/renovate.json's regexes against config files, each checked two
// ways: against the list written out here, and against what contractpin's own
// reader makes of the same file (importConfig, then runnerPackage: the package
// or image and exact version each stdio server runs), so that the recipe
// proposes a bump for exactly the servers `outdated` would look up.
const FIXTURES = fileURLToPath(new URL("../fixtures/", import.meta.url));
const CTX = { projectDir: "/work/project", home: "/home/ada" };

/** Renovate's datasource for each of contractpin's ecosystems. */
const DATASOURCE: Record<Ecosystem, string> = {
  npm: "npm",
  python: "pypi",
  pipx: "pypi",
  docker: "docker",
};

// npm packages as `pkg@1.2.3`, the others with their datasource: `pypi:pkg@1.2.3`.
const sorted = (deps: RecipeDep[]) =>
  deps
    .map((d) => `${d.datasource === "npm" ? "" : `${d.datasource}:`}${d.depName}@${d.currentValue}`)
    .sort()
    .join(" ");

/**
 * What contractpin reads in the file: each imported stdio server's pinned
 * package or image (a Python name without its extras; an image only at a
 * version tag: contractpin checks no other, see docs/upgrade.md); the recipe
 * reads Python and images in JSON files only. `skipped` names the servers it
 * did not import.
 */
function contractpinReads(
  path: string,
  text: string,
  env: Record<string, string>,
): { deps: RecipeDep[]; skipped: string[] } {
  const imported = importConfig(new TextEncoder().encode(text), path, { ...CTX, env });
  const skipped = imported.skipped.map((s) => s.name);
  const deps = imported.servers.flatMap(({ source }): RecipeDep[] => {
    if (source.transport !== "stdio") return [];
    const pkg = runnerPackage(source.command);
    if (pkg?.version === undefined) return [];
    if (pkg.ecosystem !== "npm" && !path.endsWith(".json")) return [];
    if (pkg.ecosystem === "docker" && !/^v?\d/.test(pkg.version)) return [];
    const depName = pkg.ecosystem === "docker" ? pkg.name : pkg.name.replace(/\[.*\]$/, "");
    return [{ datasource: DATASOURCE[pkg.ecosystem], depName, currentValue: pkg.version }];
  });
  return { deps, skipped };
}

describe("the Renovate recipe's regexes", () => {
  const cases: Array<[string, string]> = [
    [
      ".mcp.json",
      // npx, npm exec --, pnpm dlx with args before command, uvx, docker; not node,
      // an unpinned package, a URL, or version-like strings in env values.
      "@acme/fixture-server@3.0.0 @private/fixture-server@2.0.0-beta.1 " +
        "contractpin-fixture-server@1.0.0 docker:mcp/fetch@1.2.3 pypi:mcp-server-fetch@2025.1.1",
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
    [
      "python/.mcp.json",
      // uvx pkg@v, pkg==v after options, --from pkg[extra]==v, --from=pkg===v, uv tool run,
      // pipx run --spec and pipx run pkg==v; not an unpinned package, @latest, a range, a pin
      // in an option's value or after an unpinned --from/--spec, git, uv run, pipx install.
      "contractpin-fixture-server@1.0.0 pypi:contractpin-fixture-py@1.0.0 " +
        "pypi:contractpin-fixture-py@1.0.0 pypi:contractpin-fixture-py@1.0.0 " +
        "pypi:contractpin-fixture-py@1.0.0rc1 pypi:contractpin_fixture_py@1.0.0 " +
        "pypi:mcp-server-git@2025.1.14 pypi:mcp-server-time@0.6.2",
    ],
    [
      "images/.vscode/mcp.json",
      // docker and podman run after options, a v-tag and a variant tag; not latest, no tag, a
      // word, a digest, option values shaped like images, docker exec, an env value.
      "docker:127.0.0.1:5000/fixture@1.0.0 docker:127.0.0.1:5000/fixture@1.0.0 " +
        "docker:ghcr.io/acme/server@1.4.0-alpine docker:mcp/fetch@v1.2.3",
    ],
  ];
  for (const [path, expected] of cases) {
    it(`find every pinned server in ${path}, and nothing else`, () => {
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

  it("skip the value of every option contractpin knows takes one, in both forms", () => {
    // Each option with a value shaped like a pin before the package, pinned and not:
    // the recipe must find exactly the package contractpin reads, for every option.
    const runners: Array<[string, string[], Ecosystem]> = [
      ["uvx", [], "python"],
      ["uv", ["tool", "run"], "python"],
      ["pipx", ["run"], "pipx"],
      ["docker", ["run"], "docker"],
      ["podman", ["run"], "docker"],
    ];
    const servers: Record<string, { command: string; args: string[] }> = {};
    let pinned = 0;
    for (const [command, prefix, ecosystem] of runners) {
      const [value, pin, unpinned] =
        ecosystem === "docker" ? ["db:1.0.0", "img:2.0.0", "img"] : ["h==1.0.0", "p==2.0.0", "p"];
      for (const option of VALUE_OPTIONS[ecosystem]) {
        for (const args of [[option, value], [`${option}=${value}`]]) {
          servers[`${command} ${args.join(" ")}`] = { command, args: [...prefix, ...args, pin] };
          servers[`${command} ${args.join(" ")} -`] = {
            command,
            args: [...prefix, ...args, unpinned],
          };
          pinned++;
        }
      }
    }
    const text = JSON.stringify({ mcpServers: servers }, null, 1);
    const found = recipeDeps(".mcp.json", text);
    assert.equal(found.length, pinned);
    assert.equal(sorted(found), sorted(contractpinReads(".mcp.json", text, {}).deps));
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

  it("look Python packages up as PEP 440 versions, images as docker tags", () => {
    const versioning = Object.fromEntries(
      customManagers().map((m) => [m.datasourceTemplate, m.versioningTemplate]),
    );
    assert.deepEqual(versioning, { npm: undefined, pypi: "pep440", docker: "docker" });
  });

  it("use only what RE2 (Renovate's regex engine) accepts: no lookaround, no backreference", () => {
    for (const m of customManagers()) {
      for (const source of m.matchStrings) {
        assert.doesNotMatch(source, /\(\?<?[=!]|\\[1-9]|\\k</);
        new RegExp(source, "g");
      }
    }
  });
});
