// Continue, Zed and Cline configs read in place through the built CLI: init
// discovers them (a project's .zed/settings.json and .continue/mcpServers/*.yaml,
// the user's Cline file) and pins the real server each names; wrap rewrites
// Zed's and Cline's JSON (the wrapped entry launches the guard, checked with
// the official MCP client) and refuses Continue's YAML entry by entry, leaving
// the file untouched; unwrap gives back the bytes.
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { stripJsonc } from "../../src/config/jsonc.js";
import { tempDir } from "../helpers/cleanup.js";
import { CLI, oneLine, runCli } from "../helpers/cli.js";
import { SERVERS } from "../helpers/servers.js";

type Entry = { command: string; args: string[]; env: Record<string, string> };

function setup() {
  const root = tempDir("contractpin-formats-");
  const project = join(root, "project");
  const home = join(root, "home");
  const cline = join(
    home,
    ".config/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
  );
  const files = {
    zed: join(project, ".zed", "settings.json"),
    continue: join(project, ".continue", "mcpServers", "memory.yaml"),
    cline,
  };
  for (const f of Object.values(files)) mkdirSync(join(f, ".."), { recursive: true });
  const memory = JSON.stringify(SERVERS.memory);
  writeFileSync(
    files.zed,
    `// Zed project settings\n{\n  "tab_size": 2,\n  "context_servers": {\n` +
      `    "zed-memory": { "source": "custom", "command": "node", "args": [${memory}], "env": {} },\n` +
      `    "zed-extension": { "source": "extension", "settings": {} },\n  },\n}\n`,
  );
  writeFileSync(
    files.continue,
    `name: Memory # the team's memory server\nversion: 0.0.1\nschema: v1\nmcpServers:\n` +
      `  - name: continue-memory\n    command: node\n    args:\n      - ${memory}\n` +
      `    env:\n      MEMORY_FILE_PATH: \${{ secrets.MEMORY_FILE }}\n`,
  );
  writeFileSync(
    files.cline,
    JSON.stringify(
      {
        mcpServers: {
          "cline-memory": {
            command: "node",
            args: [SERVERS.memory],
            autoApprove: [],
            disabled: false,
            timeout: 60,
            type: "stdio",
          },
        },
      },
      null,
      2,
    ) + "\n",
  );
  const env = {
    HOME: home,
    XDG_CONFIG_HOME: undefined,
    MEMORY_FILE: join(root, "memory.jsonl"),
  };
  return { root, project, home, files, env };
}

describe("Continue, Zed and Cline configs", () => {
  it("init reads them in place; wrap rewrites Zed's and Cline's entries and refuses Continue's YAML; unwrap restores", async () => {
    const { project, files, env } = setup();
    const before = Object.fromEntries(
      Object.entries(files).map(([k, f]) => [k, readFileSync(f, "utf8")]),
    );
    const lock = join(project, "contractpin.lock");
    const init = runCli(["init", "--user"], { cwd: project, env });
    assert.equal(init.code, 0, init.stderr);
    for (const f of Object.values(files)) assert.match(init.stderr, new RegExp(`reading ${f}`));
    assert.match(init.stderr, /skipped zed-extension \(.*\): a Zed extension provides it/);
    const pinned = JSON.parse(readFileSync(lock, "utf8")) as {
      servers: Record<string, { env?: Record<string, string> }>;
    };
    assert.deepEqual(Object.keys(pinned.servers).sort(), [
      "cline-memory",
      "continue-memory",
      "zed-memory",
    ]);
    assert.deepEqual(pinned.servers["continue-memory"]!.env, {
      MEMORY_FILE_PATH: "${MEMORY_FILE}",
    });
    assert.equal(runCli(["verify"], { cwd: project, env }).code, 0);

    const wrap = runCli(["wrap", "--user"], { cwd: project, env });
    assert.equal(wrap.code, 1, wrap.stdout + wrap.stderr);
    assert.match(
      wrap.stdout,
      /left alone +continue-memory: wrap does not rewrite YAML \(Continue\), whose comments and layout it could not keep byte for byte; edit it by hand to run 'contractpin guard continue-memory --lock LOCK'/,
    );
    assert.equal(readFileSync(files.continue, "utf8"), before["continue"]);
    const entry = (file: string, key: string, name: string) =>
      (JSON.parse(stripJsonc(readFileSync(file, "utf8"))) as Record<string, Record<string, Entry>>)[
        key
      ]![name]!;
    const zed = entry(files.zed, "context_servers", "zed-memory");
    const cline = entry(files.cline, "mcpServers", "cline-memory");
    for (const [name, e] of [
      ["zed-memory", zed],
      ["cline-memory", cline],
    ] as const) {
      assert.equal(e.command, process.execPath, name);
      assert.deepEqual(e.args, [CLI, "guard", name, "--lock", lock], name);
      const transport = new StdioClientTransport({
        command: e.command,
        args: e.args,
        env: { PATH: process.env["PATH"]!, HOME: env.HOME, ...e.env },
        stderr: "pipe",
      });
      let stderr = "";
      transport.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
      const client = new Client({ name: "formats-test", version: "1.0.0" }, { capabilities: {} });
      await client.connect(transport);
      try {
        assert.ok((await client.listTools()).tools.length > 0, `${name}: ${stderr}`);
      } finally {
        await client.close();
      }
    }
    // Cline's own keys are kept; Zed's comments and other settings too.
    assert.match(readFileSync(files.cline, "utf8"), /"autoApprove": \[\]/);
    assert.match(
      readFileSync(files.zed, "utf8"),
      /^\/\/ Zed project settings\n\{\n {2}"tab_size": 2,/,
    );

    const unwrap = runCli(["unwrap", "--user"], { cwd: project, env });
    assert.equal(unwrap.code, 0, unwrap.stdout + unwrap.stderr);
    for (const [k, f] of Object.entries(files)) assert.equal(readFileSync(f, "utf8"), before[k], k);
  });

  it("a Continue YAML file with a duplicate key: exit 2, one line naming YAML and the position", () => {
    const { project, files, env } = setup();
    writeFileSync(files.continue, "mcpServers:\n  - name: a\n    command: x\n    command: y\n");
    const r = runCli(["init"], { cwd: project, env });
    assert.equal(r.code, 2, r.stderr);
    assert.ok(oneLine(r.stderr), r.stderr);
    assert.equal(
      r.stderr,
      `contractpin: ${files.continue}: not valid YAML: duplicated mapping key at line 4, column 5\n`,
    );
  });
});
