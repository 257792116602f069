import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { importConfig, type ImportResult } from "../../src/config/import-config.js";
import { fakeSecrets, fixture, PLACEHOLDERS } from "./fixtures.js";

const options = { projectDir: "/work/project", home: "/home/ada" };
const MEMORY = PLACEHOLDERS.__SERVER_MEMORY__;
const URL = `http://127.0.0.1:${PLACEHOLDERS.__HTTP_PORT__}/mcp`;

function load(rel: string): ImportResult {
  return importConfig(fixture(rel), rel, options);
}

/** Asserts that no fake secret of any fixture reaches a source, a warning or a skip reason. */
function assertNoSecret(result: ImportResult): void {
  const visible = JSON.stringify([
    result.servers.map((s) => s.source),
    result.warnings,
    result.skipped,
  ]);
  for (const secret of fakeSecrets()) assert.ok(!visible.includes(secret), `leaked ${secret}`);
}

const names = (r: ImportResult) => r.servers.map((s) => s.name);
const skipped = (r: ImportResult) => Object.fromEntries(r.skipped.map((s) => [s.name, s.reason]));
const server = (r: ImportResult, name: string) => r.servers.find((s) => s.name === name)!;
const warned = (r: ImportResult, name: string, text: string) =>
  r.warnings.some((w) => w.includes(`server ${name}:`) && w.includes(text));

describe("importConfig on each client's fixture", () => {
  it("Claude Desktop: stdio servers, an env secret moved, a password in args skipped", () => {
    const r = load("home/.config/Claude/claude_desktop_config.json");
    assert.equal(r.format, "mcp-servers");
    assert.deepEqual(names(r), ["memory", "github", "remote-docs"]);
    assert.deepEqual(server(r, "memory").source, { transport: "stdio", command: ["node", MEMORY] });
    assert.deepEqual(server(r, "github").source, {
      transport: "stdio",
      command: ["npx", "-y", "@modelcontextprotocol/server-github"],
      env: { GITHUB_PERSONAL_ACCESS_TOKEN: "${GITHUB_PERSONAL_ACCESS_TOKEN}" },
    });
    assert.deepEqual(server(r, "github").secretValues, {
      GITHUB_PERSONAL_ACCESS_TOKEN: "ghp_FAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKE1234",
    });
    assert.match(skipped(r)["postgres"]!, /args\[2\] is a URL that holds a user name or password/);
    assert.ok(warned(r, "github", "Package drift is outside the contract"));
    assert.ok(warned(r, "github", "set GITHUB_PERSONAL_ACCESS_TOKEN when verifying"));
    assert.ok(!warned(r, "remote-docs", "not pinned"), "mcp-remote@0.1.29 is pinned");
    assert.equal(server(r, "memory").file, "home/.config/Claude/claude_desktop_config.json");
    assertNoSecret(r);
  });

  it("Claude Code .mcp.json: stdio, http and sse types; ${VAR:-default} skipped", () => {
    const r = load("project/.mcp.json");
    assert.equal(r.format, "mcp-servers");
    assert.deepEqual(names(r), [
      "project-memory",
      "sentry",
      "linear",
      "sequential-thinking",
      "stripe",
      "legacy-tools",
    ]);
    assert.deepEqual(server(r, "sentry").source, {
      transport: "http",
      url: URL,
      headers: { Authorization: "Bearer ${SENTRY_TOKEN}" },
    });
    assert.deepEqual(server(r, "linear").source, { transport: "http", url: URL });
    assert.deepEqual(server(r, "stripe").secretValues, {
      STRIPE_SECRET_KEY: "sk_test_FAKEFAKEFAKEFAKEFAKEFAKE1234",
    });
    assert.match(skipped(r)["internal-api"]!, /\$\{API_BASE_URL:-…\} \(a default value\)/);
    assert.ok(!skipped(r)["internal-api"]!.includes("api.example.com"), "never quotes the default");
    assert.ok(warned(r, "sequential-thinking", "not pinned"));
    assert.ok(!warned(r, "stripe", "not pinned"), "@stripe/mcp@0.2.4 is pinned");
    assertNoSecret(r);
  });

  it("~/.claude.json: user scope, the project's local scope winning, other projects ignored", () => {
    const r = load("home/.claude.json");
    assert.equal(r.format, "claude-code-user");
    assert.deepEqual(names(r), ["user-memory", "context7", "puppeteer", "local-memory", "scratch"]);
    assert.ok(warned(r, "puppeteer", "not pinned"));
    assert.deepEqual(server(r, "scratch").source.transport, "stdio");
    assert.deepEqual((server(r, "scratch").source as { command: string[] }).command, [
      "node",
      MEMORY,
    ]);
    assert.match(skipped(r)["scratch"]!, /overridden by the entry of the same name in projects/);
    assert.ok(!names(r).includes("other-project-db"));
    assert.deepEqual(r.disabledProjectServers, ["legacy-tools"]);
    assert.deepEqual(server(r, "context7").source, {
      transport: "http",
      url: URL,
      headers: { CONTEXT7_API_KEY: "${CONTEXT7_API_KEY}" },
    });
    assertNoSecret(r);
  });

  it("~/.claude.json: the project key matches with a trailing slash", () => {
    const r = importConfig(fixture("home/.claude.json"), "c.json", {
      projectDir: "/work/project/",
    });
    assert.ok(names(r).includes("local-memory"));
  });

  it("VS Code: JSONC, inputs, ${env:}, ${workspaceFolder}, envFile", () => {
    const r = load("project/.vscode/mcp.json");
    assert.equal(r.format, "vscode");
    assert.deepEqual(names(r), [
      "vscode-memory",
      "perplexity",
      "github-remote",
      "fetch",
      "playwright",
    ]);
    assert.deepEqual(server(r, "vscode-memory").source, {
      transport: "stdio",
      command: ["node", MEMORY],
      env: { MEMORY_FILE_PATH: "/work/project/.vscode/memory.jsonl" },
    });
    assert.deepEqual(server(r, "perplexity").source, {
      transport: "stdio",
      command: ["npx", "-y", "server-perplexity-ask"],
      env: { PERPLEXITY_API_KEY: "${CONTRACTPIN_INPUT_PERPLEXITY_KEY}" },
    });
    assert.ok(warned(r, "perplexity", "set CONTRACTPIN_INPUT_PERPLEXITY_KEY when verifying"));
    assert.deepEqual(server(r, "github-remote").source, {
      transport: "http",
      url: URL,
      headers: { Authorization: "Bearer ${GITHUB_TOKEN}" },
    });
    assert.ok(warned(r, "vscode-memory", "envFile"));
    assert.ok(warned(r, "fetch", "uvx mcp-server-fetch@1.2.3"));
    assert.ok(!warned(r, "playwright", "not pinned"));
    assertNoSecret(r);
  });

  it("Cursor (project): url without type is http, literal header moved, secret arg skipped", () => {
    const r = load("project/.cursor/mcp.json");
    assert.equal(r.format, "mcp-servers");
    assert.deepEqual(names(r), ["cursor-memory", "brave-search", "figma", "docker-fetch"]);
    assert.deepEqual(server(r, "figma").source, {
      transport: "http",
      url: URL,
      headers: { "X-Figma-Token": "${FIGMA_X_FIGMA_TOKEN}" },
    });
    assert.deepEqual(server(r, "figma").secretValues, {
      FIGMA_X_FIGMA_TOKEN: "figd_FAKEFAKEFAKEFAKEFAKEFAKE1234",
    });
    assert.match(
      skipped(r)["cli-tool"]!,
      /args\[1\] \(the value of --api-key\) looks like a credential/,
    );
    assert.ok(warned(r, "docker-fetch", "docker run mcp/fetch:1.2.3"));
    assertNoSecret(r);
  });

  it("Cursor (user): ${userHome}, a token inside a JSON env value, ${env:} in a header", () => {
    const r = load("home/.cursor/mcp.json");
    assert.deepEqual(names(r), ["cursor-user-memory", "notion", "linear-remote", "sqlite"]);
    assert.deepEqual((server(r, "notion").source as { env: object }).env, {
      OPENAPI_MCP_HEADERS: "${OPENAPI_MCP_HEADERS}",
    });
    assert.deepEqual(server(r, "linear-remote").source, {
      transport: "http",
      url: URL,
      headers: { Authorization: "Bearer ${LINEAR_API_KEY}" },
    });
    assert.ok(warned(r, "notion", "not pinned"));
    assertNoSecret(r);
    assert.deepEqual(server(r, "sqlite").source, {
      transport: "stdio",
      command: ["uvx", "mcp-server-sqlite@2025.4.25", "--db-path", "/home/ada/.cursor/test.db"],
    });
    assert.ok(!warned(r, "sqlite", "not pinned"));
    const noHome = importConfig(fixture("home/.cursor/mcp.json"), "m.json", { projectDir: "/p" });
    assert.match(skipped(noHome)["sqlite"]!, /userHome/);
  });

  it("Windsurf: serverUrl, disabled: true, a token in the URL's query skipped", () => {
    const r = load("home/.codeium/windsurf/mcp_config.json");
    assert.equal(r.format, "mcp-servers");
    assert.deepEqual(names(r), ["windsurf-memory", "gitlab", "deepwiki"]);
    assert.deepEqual(server(r, "deepwiki").source, {
      transport: "http",
      url: URL,
      headers: { Authorization: "Bearer ${DEEPWIKI_TOKEN}" },
    });
    assert.deepEqual((server(r, "gitlab").source as { env: object }).env, {
      GITLAB_PERSONAL_ACCESS_TOKEN: "${GITLAB_PERSONAL_ACCESS_TOKEN}",
      GITLAB_API_URL: "https://gitlab.com/api/v4",
    });
    assert.equal(skipped(r)["slack"], "disabled");
    assert.match(skipped(r)["supabase"]!, /query parameter access_token/);
    assertNoSecret(r);
  });

  it("Codex: TOML tables, bearer_token_env_var, http_headers, env_http_headers, enabled = false", () => {
    const r = load("home/.codex/config.toml");
    assert.equal(r.format, "codex");
    assert.deepEqual(names(r), ["codex-memory", "openai-docs", "figma-local"]);
    assert.deepEqual(server(r, "openai-docs").source, {
      transport: "http",
      url: URL,
      headers: {
        Authorization: "Bearer ${OPENAI_DOCS_TOKEN}",
        "X-Client-Name": "${OPENAI_DOCS_X_CLIENT_NAME}",
        "X-Org-Id": "${OPENAI_ORG_ID}",
      },
    });
    assert.deepEqual(server(r, "openai-docs").secretValues, { OPENAI_DOCS_X_CLIENT_NAME: "codex" });
    assert.ok(warned(r, "openai-docs", "X-Client-Name is a literal value"));
    assert.deepEqual(server(r, "figma-local").secretValues, {
      FIGMA_API_KEY: "figd_FAKEFAKEFAKEFAKEFAKEFAKE5678",
    });
    assert.equal(skipped(r)["fetch-docker"], "disabled");
    assertNoSecret(r);
  });

  it("Gemini CLI: httpUrl, $VAR in env, mcp.excluded, cwd", () => {
    const r = load("home/.gemini/settings.json");
    assert.equal(r.format, "mcp-servers");
    assert.deepEqual(names(r), ["gemini-memory", "gemini-github", "remote-tools"]);
    assert.deepEqual(server(r, "gemini-memory").source, {
      transport: "stdio",
      command: ["node", MEMORY],
      cwd: "./",
    });
    assert.deepEqual((server(r, "gemini-github").source as { env: object }).env, {
      GITHUB_PERSONAL_ACCESS_TOKEN: "${GITHUB_TOKEN}",
    });
    assert.deepEqual(server(r, "gemini-github").secretValues, {});
    assert.deepEqual(server(r, "remote-tools").source, {
      transport: "http",
      url: URL,
      headers: { Authorization: "Bearer ${REMOTE_TOOLS_AUTHORIZATION}" },
    });
    assert.deepEqual(server(r, "remote-tools").secretValues, {
      REMOTE_TOOLS_AUTHORIZATION: "ghp_FAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKE5678",
    });
    assert.equal(skipped(r)["experimental"], "disabled");
    assertNoSecret(r);
  });
});
