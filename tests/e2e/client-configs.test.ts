// Every client's config fixture imported through the built CLI into a lock
// that holds no secret, then verified against the real servers it names.
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fakeSecrets, FIXTURES, fixtureTree } from "../config/fixtures.js";
import { tempDir } from "../helpers/cleanup.js";
import { oneLine, runCli } from "../helpers/cli.js";
import { SERVERS, startEverythingHttp, type Running } from "../helpers/servers.js";

// Variables the fixtures' references name (fixtures README): any value serves,
// the test servers ignore them.
const VARIABLES = [
  "SENTRY_TOKEN",
  "STRIPE_SECRET_KEY",
  "GITHUB_PERSONAL_ACCESS_TOKEN",
  "CONTEXT7_API_KEY",
  "CONTRACTPIN_INPUT_PERPLEXITY_KEY",
  "GITHUB_TOKEN",
  "BRAVE_API_KEY",
  "FIGMA_X_FIGMA_TOKEN",
  "LINEAR_API_KEY",
  "OPENAPI_MCP_HEADERS",
  "DEEPWIKI_TOKEN",
  "GITLAB_PERSONAL_ACCESS_TOKEN",
  "OPENAI_DOCS_TOKEN",
  "OPENAI_ORG_ID",
  "OPENAI_DOCS_X_CLIENT_NAME",
  "FIGMA_API_KEY",
  "REMOTE_TOOLS_AUTHORIZATION",
];

const CLIENTS: [string, string][] = [
  ["Claude Desktop", "home/.config/Claude/claude_desktop_config.json"],
  ["Claude Code (project)", "project/.mcp.json"],
  ["Claude Code (user)", "home/.claude.json"],
  ["VS Code", "project/.vscode/mcp.json"],
  ["Cursor (project)", "project/.cursor/mcp.json"],
  ["Cursor (user)", "home/.cursor/mcp.json"],
  ["Windsurf", "home/.codeium/windsurf/mcp_config.json"],
  ["Codex", "home/.codex/config.toml"],
  ["Gemini CLI", "home/.gemini/settings.json"],
];

describe("importing client configs", () => {
  let http: Running;
  let tree: { root: string; home: string; project: string };
  let env: Record<string, string>;
  const secrets = fakeSecrets();

  before(async () => {
    http = await startEverythingHttp();
    tree = fixtureTree({
      __SERVER_MEMORY__: SERVERS.memory,
      __HTTP_PORT__: new URL(http.url).port,
    });
    env = {
      HOME: tree.home,
      PATH: `${join(FIXTURES, "bin")}:${process.env["PATH"]}`,
      ...Object.fromEntries(VARIABLES.map((v) => [v, "test-value"])),
    };
  });
  after(async () => {
    await http.stop();
  });

  function assertNoSecret(text: string, where: string): void {
    assert.ok(secrets.length > 10, "the fixtures hold fake secrets");
    for (const secret of secrets)
      assert.ok(!text.includes(secret), `${where} holds ${secret.slice(0, 6)}…`);
  }

  for (const [client, file] of CLIENTS) {
    it(`${client}: init --from imports it, the lock holds no secret, verify exits 0`, () => {
      const lock = join(tree.root, `${client.replace(/\W+/g, "-")}.lock`);
      const init = runCli(["init", "--from", join(tree.root, file), "--lock", lock], {
        cwd: tree.project,
        env,
      });
      assert.equal(init.code, 0, init.stderr);
      assert.match(init.stdout, /^pinned /m);
      const text = readFileSync(lock, "utf8");
      assertNoSecret(text, "the lock");
      assertNoSecret(init.stderr, "stderr");
      assert.doesNotMatch(text, /"(?:[A-Za-z0-9_-]+)": "(?:Bearer )?(?:ghp_|sk_|sk-|xox)/);
      // From the root, where no client keeps a config: in the project, the other
      // configs define servers this lock does not pin, which verify fails on (SPEC.md 12).
      const verify = runCli(["verify", "--lock", lock], { cwd: tree.root, env });
      assert.equal(verify.code, 0, verify.stdout + verify.stderr);
    });
  }

  it("init discovers the project's configs; --user adds the user-level ones; disabled servers are listed", () => {
    const projectLock = join(tree.root, "project-only.lock");
    const project = runCli(["init", "--lock", projectLock], { cwd: tree.project, env });
    assert.equal(project.code, 0, project.stderr);
    const projectServers = Object.keys(JSON.parse(readFileSync(projectLock, "utf8")).servers);
    assert.ok(
      projectServers.includes("project-memory") && projectServers.includes("vscode-memory"),
    );
    assert.ok(!projectServers.includes("windsurf-memory"));

    const userLock = join(tree.root, "with-user.lock");
    const user = runCli(["init", "--user", "--lock", userLock], { cwd: tree.project, env });
    assert.equal(user.code, 0, user.stderr);
    const userServers = Object.keys(JSON.parse(readFileSync(userLock, "utf8")).servers);
    for (const name of [
      "windsurf-memory",
      "codex-memory",
      "gemini-memory",
      "user-memory",
      "memory",
    ]) {
      assert.ok(userServers.includes(name), name);
    }
    assert.match(user.stderr, /skipped slack \(.*mcp_config\.json\): disabled/);
    assert.match(user.stderr, /skipped fetch-docker \(.*config\.toml\): disabled/);
    assert.match(user.stderr, /warning: .*server github: .*run through npx, is not pinned/);
    assertNoSecret(readFileSync(userLock, "utf8"), "the lock");
    assert.equal(runCli(["verify", "--lock", userLock], { cwd: tree.project, env }).code, 0);
  });

  it("a project config shared in git: ${workspaceFolder} stays relative (the lock verifies after the project moves); an unset ${input:ID} skips only its server", () => {
    const project = join(tempDir("contractpin-shared-"), "app");
    mkdirSync(join(project, ".vscode"), { recursive: true });
    writeFileSync(
      join(project, ".vscode", "mcp.json"),
      JSON.stringify({
        servers: {
          files: { command: "node", args: [SERVERS.filesystem, "${workspaceFolder}"] },
          prompted: {
            command: "node",
            args: [SERVERS.memory],
            env: { MEMORY_TOKEN: "${input:memory-token}" },
          },
        },
      }),
    );
    const init = runCli(["init"], {
      cwd: project,
      env: { ...env, CONTRACTPIN_INPUT_MEMORY_TOKEN: undefined },
    });
    assert.equal(init.code, 0, init.stderr);
    const skipped = init.stderr.split("\n").filter((l) => l.includes("prompted"));
    assert.deepEqual(
      skipped,
      [
        `contractpin: skipped prompted (${join(".vscode", "mcp.json").replace(/^/, project + "/")}): ` +
          "${input:memory-token} is a VS Code input, which VS Code prompts for; contractpin reads it " +
          "from CONTRACTPIN_INPUT_MEMORY_TOKEN, which is not set: set it and run init again to pin this server",
      ],
      init.stderr,
    );
    const lock = JSON.parse(readFileSync(join(project, "contractpin.lock"), "utf8")) as {
      servers: Record<string, { command: string[] }>;
    };
    assert.deepEqual(Object.keys(lock.servers), ["files"]);
    assert.deepEqual(lock.servers["files"]!.command, ["node", SERVERS.filesystem, "."]);
    // A teammate's clone is elsewhere: the lock still verifies there.
    const moved = `${project}-clone`;
    renameSync(project, moved);
    const verify = runCli(["verify"], { cwd: moved, env });
    assert.equal(verify.code, 0, verify.stdout + verify.stderr);
  });

  it("the same server name in two files: exit 2, naming both files", () => {
    const file = join(tree.root, "project/.mcp.json");
    const r = runCli(
      [
        "init",
        "--from",
        file,
        "--from",
        join(tree.root, "copy.json"),
        "--lock",
        join(tree.root, "x.lock"),
      ],
      {
        cwd: tree.project,
        env,
      },
    );
    // copy.json does not exist yet: a missing --from file is exit 2 too.
    assert.equal(r.code, 2);
    assert.match(r.stderr, /copy\.json: no such file/);
    const copy = join(tree.root, "copy.json");
    // The same name defined differently: the same definition would be one server.
    writeFileSync(copy, JSON.stringify({ mcpServers: { "project-memory": { command: "other" } } }));
    const conflict = runCli(
      ["init", "--from", file, "--from", copy, "--lock", join(tree.root, "y.lock")],
      { cwd: tree.project, env },
    );
    assert.equal(conflict.code, 2);
    assert.ok(oneLine(conflict.stderr), conflict.stderr);
    assert.match(
      conflict.stderr,
      /^contractpin: server project-memory is defined differently in .*\.mcp\.json and .*copy\.json \(its command differs\)/,
    );
  });

  const malformed: [string, RegExp][] = [
    ["invalid/malformed.json", /malformed\.json: not valid JSON: .*byte 96/],
    ["invalid/malformed.toml", /malformed\.toml: not valid TOML: .*line 4, column 1/],
    [
      "invalid/jsonc-duplicate-key.json",
      /jsonc-duplicate-key\.json: .*duplicate member name "twice"/,
    ],
    ["invalid/not-a-config.json", /not-a-config\.json: /],
  ];
  for (const [file, message] of malformed) {
    it(`${file}: exit 2, naming the file and the position`, () => {
      const r = runCli(
        ["init", "--from", join(FIXTURES, file), "--lock", join(tree.root, "bad.lock")],
        { cwd: tree.project, env },
      );
      assert.equal(r.code, 2, r.stderr);
      assert.ok(oneLine(r.stderr), r.stderr);
      assert.match(r.stderr, message);
    });
  }
});
