// `contractpin wrap` and `unwrap` on every client's config fixture, through
// the built CLI: the wrapped entries launch the guard (checked by running
// them with the official MCP client), everything else stays byte for byte,
// and unwrap gives back the original bytes, even with the backup deleted.
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import assert from "node:assert/strict";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { after, before, describe, it } from "node:test";
import { parse as parseToml } from "smol-toml";
import { stripJsonc } from "../../src/config/jsonc.js";
import { fakeSecrets, FIXTURES, fixtureTree } from "../config/fixtures.js";
import { atEnd, tempDir } from "../helpers/cleanup.js";
import { CLI, oneLine, runCli } from "../helpers/cli.js";
import { SERVERS, startEverythingHttp, type Running } from "../helpers/servers.js";

// [client, file, entries the lock pins (init imports them), entries init skips]
const CLIENTS: Array<[string, string, string[], string[]]> = [
  [
    "Claude Desktop",
    "home/.config/Claude/claude_desktop_config.json",
    ["memory", "github", "remote-docs"],
    ["postgres"],
  ],
  [
    "Claude Code (project)",
    "project/.mcp.json",
    ["project-memory", "sentry", "linear", "sequential-thinking", "stripe"],
    ["internal-api"],
  ],
  [
    "Claude Code (user)",
    "home/.claude.json",
    ["user-memory", "context7", "puppeteer", "local-memory", "scratch"],
    [],
  ],
  [
    "VS Code",
    "project/.vscode/mcp.json",
    ["vscode-memory", "perplexity", "github-remote", "fetch", "playwright"],
    [],
  ],
  [
    "Cursor (project)",
    "project/.cursor/mcp.json",
    ["cursor-memory", "brave-search", "figma", "docker-fetch"],
    ["cli-tool"],
  ],
  [
    "Cursor (user)",
    "home/.cursor/mcp.json",
    ["cursor-user-memory", "notion", "linear-remote", "sqlite"],
    [],
  ],
  [
    "Windsurf",
    "home/.codeium/windsurf/mcp_config.json",
    ["windsurf-memory", "gitlab", "deepwiki"],
    ["supabase"],
  ],
  ["Codex", "home/.codex/config.toml", ["codex-memory", "openai-docs", "figma-local"], []],
  [
    "Gemini CLI",
    "home/.gemini/settings.json",
    ["gemini-memory", "gemini-github", "remote-tools"],
    [],
  ],
];

/** Where wrap keeps a config's one backup: .contractpin-backup/ beside it. */
const backupOf = (file: string) => join(dirname(file), ".contractpin-backup", basename(file));

type Entry = { command?: string; args?: string[]; env?: Record<string, string> };

function entries(file: string, text: string, project: string): Record<string, Entry> {
  if (file.endsWith(".toml"))
    return (parseToml(text) as { mcp_servers: Record<string, Entry> }).mcp_servers;
  type Servers = Record<string, Entry>;
  const doc = JSON.parse(stripJsonc(text)) as {
    mcpServers?: Servers;
    servers?: Servers;
    projects?: Record<string, { mcpServers: Servers }>;
  };
  if (file.endsWith(".claude.json")) {
    return { ...doc.mcpServers, ...doc.projects![project]!.mcpServers };
  }
  return doc.mcpServers ?? doc.servers!;
}

describe("wrap and unwrap", () => {
  let http: Running;
  let tree: { root: string; home: string; project: string };
  let env: Record<string, string>;
  let lock: string;
  const secrets = fakeSecrets();
  const noSecret = (text: string, where: string) => {
    for (const s of secrets) assert.ok(!text.includes(s), `${where} shows ${s.slice(0, 6)}…`);
  };

  before(async () => {
    http = await startEverythingHttp();
    tree = fixtureTree({
      __SERVER_MEMORY__: SERVERS.memory,
      __HTTP_PORT__: new URL(http.url).port,
    });
    env = { HOME: tree.home, PATH: `${join(FIXTURES, "bin")}:${process.env["PATH"]}` };
    lock = join(tree.root, "contractpin.lock");
    // Every server of every file in one lock; the values of the references do not matter.
    const vars = [
      "SENTRY_TOKEN",
      "CONTRACTPIN_INPUT_PERPLEXITY_KEY",
      "GITHUB_TOKEN",
      "LINEAR_API_KEY",
      "DEEPWIKI_TOKEN",
      "OPENAI_DOCS_TOKEN",
      "OPENAI_ORG_ID",
    ];
    const init = runCli(["init", "--user", "--lock", lock], {
      cwd: tree.project,
      env: { ...env, ...Object.fromEntries(vars.map((v) => [v, "test-value"])) },
    });
    assert.equal(init.code, 0, init.stderr);
  });
  after(async () => {
    await http.stop();
  });

  for (const [client, rel, pinned, skipped] of CLIENTS) {
    it(`${client}: wrap launches each pinned entry through the guard; wrap again changes nothing; unwrap gives back the bytes`, () => {
      const file = join(tree.root, rel);
      const original = readFileSync(file);
      const wrap = runCli(["wrap", "--from", file, "--lock", lock], { cwd: tree.project, env });
      assert.equal(wrap.code, 0, wrap.stdout + wrap.stderr);
      noSecret(wrap.stdout + wrap.stderr, "wrap's output");
      const text = readFileSync(file, "utf8");
      assert.notEqual(text, original.toString("utf8"));
      assert.deepEqual(readFileSync(backupOf(file)), original);
      const now = entries(rel, text, tree.project);
      for (const name of pinned) {
        const entry = now[name]!;
        assert.equal(entry.command, process.execPath, name);
        assert.deepEqual(entry.args, [CLI, "guard", name, "--lock", lock], name);
        assert.ok(entry.env?.["CONTRACTPIN_WRAPPED_ENTRY"], name);
      }
      for (const name of skipped) {
        assert.notEqual(now[name]!.command, process.execPath, name);
        assert.match(wrap.stdout, new RegExp(`left alone +${name}: not pinned in the lock`));
      }
      // Comments and every line outside the wrapped entries are kept.
      for (const line of original.toString("utf8").split("\n")) {
        if (/^\s*(#|\/\/|\/\*)/.test(line)) assert.ok(text.includes(line), line);
      }
      const again = runCli(["wrap", "--from", file, "--lock", lock], { cwd: tree.project, env });
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stdout, /nothing to change/);
      assert.match(again.stdout, /already wrapped/);
      assert.equal(readFileSync(file, "utf8"), text);
      // The original is in the entries themselves: no backup needed.
      rmSync(backupOf(file));
      const unwrap = runCli(["unwrap", "--from", file], { cwd: tree.project, env });
      assert.equal(unwrap.code, 0, unwrap.stderr);
      noSecret(unwrap.stdout + unwrap.stderr, "unwrap's output");
      assert.deepEqual(readFileSync(file), original);
      rmSync(backupOf(file));
    });
  }

  it("--dry-run prints a unified diff with every secret masked and writes nothing", () => {
    for (const [, rel] of CLIENTS) {
      const file = join(tree.root, rel);
      const original = readFileSync(file);
      const r = runCli(["wrap", "--dry-run", "--from", file, "--lock", lock], {
        cwd: tree.project,
        env,
      });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^--- .*\n\+\+\+ .*\n@@ -\d+(,\d+)? \+\d+(,\d+)? @@\n/);
      assert.match(r.stdout, /^\+.*"?guard"?/m);
      assert.match(r.stdout, /CONTRACTPIN_WRAPPED_ENTRY.*…\(the original entry, for unwrap\)…/);
      noSecret(r.stdout + r.stderr, `the diff of ${rel}`);
      assert.match(r.stderr, /would wrap/);
      assert.deepEqual(readFileSync(file), original);
      assert.ok(!existsSync(backupOf(file)));
    }
  });

  it("without --from: the project's configs; --user adds every user-level one", () => {
    const project = runCli(["wrap", "--dry-run", "--lock", lock], { cwd: tree.project, env });
    assert.equal(project.code, 0, project.stderr);
    const files = (out: string) => [...out.matchAll(/^(\S.*): would wrap/gm)].map((m) => m[1]);
    assert.deepEqual(
      files(project.stderr),
      [".mcp.json", ".vscode/mcp.json", ".cursor/mcp.json"].map((f) => join(tree.project, f)),
    );
    const user = runCli(["wrap", "--dry-run", "--user", "--lock", lock], {
      cwd: tree.project,
      env,
    });
    assert.equal(user.code, 0, user.stderr);
    assert.equal(files(user.stderr).length, CLIENTS.length);
    noSecret(user.stdout + user.stderr, "the diff of every config");
  });

  it("an entry whose command is not what the lock pins is left alone (exit 1); other servers are wrapped", () => {
    const file = join(tree.root, "changed.json");
    const text = readFileSync(
      join(tree.root, "home/.config/Claude/claude_desktop_config.json"),
      "utf8",
    ).replace(`"args": ["${SERVERS.memory}"]`, `"args": ["${SERVERS.memory}", "--other"]`);
    writeFileSync(file, text);
    const r = runCli(["wrap", "--from", file, "--lock", lock], { cwd: tree.project, env });
    assert.equal(r.code, 1, r.stderr);
    assert.match(
      r.stdout,
      /left alone +memory: its command is not what the lock pins \(wrapping it would guard a different server\)/,
    );
    const now = entries("x.json", readFileSync(file, "utf8"), tree.project);
    assert.deepEqual(now["memory"]!.args, [SERVERS.memory, "--other"]);
    assert.equal(now["github"]!.command, process.execPath);
  });

  it("no lock, or a malformed config: exit 2 with one line, nothing written", () => {
    const file = join(tree.root, "project/.mcp.json");
    const original = readFileSync(file);
    const r = runCli(["wrap", "--from", file, "--lock", join(tree.root, "none.lock")], {
      cwd: tree.project,
      env,
    });
    assert.equal(r.code, 2);
    assert.ok(oneLine(r.stderr), r.stderr);
    assert.match(r.stderr, /none\.lock: cannot read the lock/);
    const bad = runCli(
      ["wrap", "--from", file, "--from", join(FIXTURES, "invalid/malformed.json"), "--lock", lock],
      { cwd: tree.project, env },
    );
    assert.equal(bad.code, 2);
    assert.ok(oneLine(bad.stderr), bad.stderr);
    assert.match(bad.stderr, /malformed\.json: not valid JSON/);
    assert.deepEqual(readFileSync(file), original);
  });

  it("a wrapped entry really launches the guard: stdio and HTTP servers answer tools/list through it", async () => {
    const file = join(tree.root, "home/.cursor/mcp.json");
    const original = readFileSync(file);
    atEnd(() => writeFileSync(file, original));
    assert.equal(
      runCli(["wrap", "--from", file, "--lock", lock], { cwd: tree.project, env }).code,
      0,
    );
    const now = entries(file, readFileSync(file, "utf8"), tree.project);
    // cursor-user-memory (stdio), notion (npx shim, a literal secret in env that
    // the lock refers to as ${OPENAPI_MCP_HEADERS}: without it the guard fails
    // closed) and linear-remote (pinned over HTTP, a ${env:VAR} header): the
    // entry's env, expanded as Cursor expands ${env:VAR} from its environment.
    for (const [name, extra] of [
      ["cursor-user-memory", {}],
      ["notion", {}],
      ["linear-remote", { LINEAR_API_KEY: "from-client" }],
    ] as const) {
      const entry = now[name]!;
      const clientEnv: Record<string, string> = { ...extra };
      const expanded = Object.entries(entry.env!).map(([k, v]) => [
        k,
        v.replace(/\$\{env:(\w+)\}/g, (_, x: string) => clientEnv[x] ?? ""),
      ]);
      const transport = new StdioClientTransport({
        command: entry.command!,
        args: entry.args!,
        env: { PATH: env["PATH"]!, HOME: tree.home, ...Object.fromEntries(expanded) },
        stderr: "pipe",
      });
      let stderr = "";
      transport.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
      const client = new Client({ name: "wrap-test", version: "1.0.0" }, { capabilities: {} });
      await client.connect(transport);
      try {
        const { tools } = await client.listTools();
        assert.ok(tools.length > 0, `${name}: ${stderr}`);
        assert.doesNotMatch(stderr, /withheld/, name);
      } finally {
        await client.close();
      }
    }
  });
  it("a project wrap or unwrap is not led out of the project by a link; --user rewrites the real file, its backup beside it", () => {
    // A user-level Cursor config of a home of its own, pinned by the lock.
    const home = tempDir("contractpin-home-");
    mkdirSync(join(home, ".cursor"));
    const userFile = join(home, ".cursor", "mcp.json");
    const original = `{"mcpServers": {"cursor-user-memory": {"command": "node", "args": [${JSON.stringify(SERVERS.memory)}]}}}\n`;
    writeFileSync(userFile, original);
    chmodSync(userFile, 0o600);
    const real = realpathSync(userFile);
    const homeEnv = { ...env, HOME: home, XDG_CONFIG_HOME: undefined, CODEX_HOME: undefined };
    // One repository commits .cursor as a link to ~/.cursor, one .cursor/mcp.json as a link to the file.
    const folderLink = tempDir("contractpin-repo-");
    symlinkSync(join(home, ".cursor"), join(folderLink, ".cursor"));
    const fileLink = tempDir("contractpin-repo-");
    mkdirSync(join(fileLink, ".cursor"));
    symlinkSync(userFile, join(fileLink, ".cursor", "mcp.json"));
    const untouched = (why: string) => {
      assert.equal(readFileSync(userFile, "utf8"), original, why);
      assert.deepEqual(readdirSync(join(home, ".cursor")), ["mcp.json"], why);
      assert.deepEqual(readdirSync(join(fileLink, ".cursor")), ["mcp.json"], why);
    };
    for (const repo of [folderLink, fileLink]) {
      const link = join(repo, ".cursor", "mcp.json");
      for (const args of [["wrap", "--lock", lock], ["unwrap"]]) {
        const r = runCli(args, { cwd: repo, env: homeEnv });
        assert.equal(r.code, 2, `${args[0]}: ${r.stdout}${r.stderr}`);
        assert.ok(oneLine(r.stderr), r.stderr);
        assert.equal(
          r.stderr,
          `contractpin: ${link} leads to ${real}, a user-level config; without --user, ${args[0]} rewrites only the project's configs (the project is ${realpathSync(repo)}); nothing was written; run with --user if you mean to rewrite it\n`,
        );
        untouched(`${args[0]} in ${repo}`);
      }
      const named = runCli(["wrap", "--from", ".cursor/mcp.json", "--lock", lock], {
        cwd: repo,
        env: homeEnv,
      });
      assert.equal(named.code, 2, named.stdout + named.stderr);
      assert.match(
        named.stderr,
        /leads to .*; name that file with --from if you mean to rewrite it\n$/,
      );
      untouched(`wrap --from in ${repo}`);
    }
    // A link to a file that is no client's user config, outside the project.
    const elsewhere = tempDir("contractpin-elsewhere-");
    writeFileSync(join(elsewhere, "mcp.json"), original);
    symlinkSync(join(elsewhere, "mcp.json"), join(fileLink, ".mcp.json"));
    const outside = runCli(["wrap", "--lock", lock], { cwd: fileLink, env: homeEnv });
    assert.equal(outside.code, 2, outside.stdout + outside.stderr);
    assert.match(
      outside.stderr,
      /^contractpin: \S+\.mcp\.json leads to \S+mcp\.json, outside the project; without --user/,
    );
    assert.equal(readFileSync(join(elsewhere, "mcp.json"), "utf8"), original);
    rmSync(join(fileLink, ".mcp.json"));
    // The project is the home folder: ~/.cursor/mcp.json is the user's, not a project config.
    const inHome = runCli(["wrap", "--lock", lock], { cwd: home, env: homeEnv });
    assert.equal(inHome.code, 2, inHome.stdout + inHome.stderr);
    assert.match(
      inHome.stderr,
      new RegExp(`^contractpin: .*mcp\\.json is a user-level config; .*run with --user`),
    );
    untouched("wrap in the home folder");

    // --user means it: the real file is written (read once, though two paths lead to it),
    // its backup beside it with its mode, and the output names it.
    const wrap = runCli(["wrap", "--user", "--lock", lock], { cwd: fileLink, env: homeEnv });
    assert.equal(wrap.code, 0, wrap.stdout + wrap.stderr);
    assert.equal(
      wrap.stdout,
      `${real}: wrapped 1; backup: ${backupOf(real)}\n  wrapped       cursor-user-memory\n`,
    );
    assert.equal(readFileSync(backupOf(real), "utf8"), original);
    assert.equal(statSync(backupOf(real)).mode & 0o777, 0o600);
    assert.equal(statSync(real).mode & 0o777, 0o600);
    assert.deepEqual(
      readdirSync(join(fileLink, ".cursor")),
      ["mcp.json"],
      "no backup in the repository",
    );
    const wrapped = readFileSync(real, "utf8");
    assert.match(wrapped, /CONTRACTPIN_WRAPPED_ENTRY/);
    // unwrap without --user is refused as wrap is; with it, the bytes come back.
    assert.equal(runCli(["unwrap"], { cwd: folderLink, env: homeEnv }).code, 2);
    assert.equal(readFileSync(real, "utf8"), wrapped);
    const unwrap = runCli(["unwrap", "--user"], { cwd: folderLink, env: homeEnv });
    assert.equal(unwrap.code, 0, unwrap.stdout + unwrap.stderr);
    assert.match(unwrap.stdout, new RegExp(`^${real.replace(/[.]/g, "\\.")}: restored 1;`));
    assert.equal(readFileSync(real, "utf8"), original);
  });
});
