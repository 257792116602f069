// `wrap` of the project configs a team commits, through the built CLI: the
// wrapped entries run the project's installed contractpin and name the lock
// relative to the project, so they work in another clone (checked by moving
// the project and launching each entry with the official MCP client, as its
// client would); and wrap then unwrap leaves no untracked file in git.
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, it } from "node:test";
import { tempDir } from "../helpers/cleanup.js";
import { CLI, runCli } from "../helpers/cli.js";
import { SERVERS } from "../helpers/servers.js";

const ROOT = join(dirname(CLI), "..", "..");
type Entry = { command: string; args: string[]; env: Record<string, string> };

function git(cwd: string, ...args: string[]): string {
  const r = spawnSync("git", args, { cwd, encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

/** A project with the three shared configs, each naming one memory server, committed to git. */
function project(installed: boolean): { dir: string; files: Record<string, string> } {
  const dir = join(tempDir("contractpin-team-"), "app");
  mkdirSync(join(dir, ".vscode"), { recursive: true });
  mkdirSync(join(dir, ".cursor"));
  const server = (name: string) =>
    `{\n    "${name}": { "command": "node", "args": [${JSON.stringify(SERVERS.memory)}] }\n  }`;
  const files = {
    ".mcp.json": `{\n  // Claude Code\n  "mcpServers": ${server("claude-memory")}\n}\n`,
    ".vscode/mcp.json": `{\n  "servers": ${server("vscode-memory")}\n}\n`,
    ".cursor/mcp.json": `{\n  "mcpServers": ${server("cursor-memory")}\n}\n`,
  };
  for (const [rel, text] of Object.entries(files)) writeFileSync(join(dir, rel), text);
  if (installed) {
    // The project's own contractpin, as `npm install --save-dev` would put it.
    mkdirSync(join(dir, "node_modules", ".bin"), { recursive: true });
    symlinkSync(ROOT, join(dir, "node_modules", "contractpin"));
    symlinkSync(
      "../contractpin/dist/bin/contractpin.cjs",
      join(dir, "node_modules", ".bin", "contractpin"),
    );
    writeFileSync(join(dir, ".gitignore"), "node_modules/\n");
  }
  const init = runCli(["init"], { cwd: dir });
  assert.equal(init.code, 0, init.stderr);
  git(dir, "init", "-q");
  git(dir, "add", "-A");
  git(dir, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "configs");
  return { dir, files };
}

function entryOf(dir: string, rel: string, name: string): Entry {
  const doc = JSON.parse(readFileSync(join(dir, rel), "utf8").replace(/^\s*\/\/.*$/gm, ""));
  return (doc.mcpServers ?? doc.servers)[name] as Entry;
}

describe("wrap of a project config shared in git", () => {
  it("runs the project's contractpin with a lock relative to the project; the entries work in another clone; wrap and unwrap leave no untracked file", async () => {
    const { dir, files } = project(true);
    const wrap = runCli(["wrap"], { cwd: dir });
    assert.equal(wrap.code, 0, wrap.stdout + wrap.stderr);
    assert.doesNotMatch(wrap.stdout, /note:/);
    // Claude Code starts project servers in the project; VS Code and Cursor expand
    // ${workspaceFolder}. node runs the installed script: no npx, which loads npm first;
    // through a few lines of `node -e` that say to run npm ci when it is not installed.
    const script = "node_modules/contractpin/dist/bin/contractpin.cjs";
    const workspace = ["${workspaceFolder}/" + script];
    const expected: Array<[string, string, string[]]> = [
      [
        ".mcp.json",
        "claude-memory",
        [script, "guard", "claude-memory", "--lock", "contractpin.lock"],
      ],
      [
        ".vscode/mcp.json",
        "vscode-memory",
        [...workspace, "guard", "vscode-memory", "--lock", "${workspaceFolder}/contractpin.lock"],
      ],
      [
        ".cursor/mcp.json",
        "cursor-memory",
        [...workspace, "guard", "cursor-memory", "--lock", "${workspaceFolder}/contractpin.lock"],
      ],
    ];
    for (const [rel, name, args] of expected) {
      const entry = entryOf(dir, rel, name);
      assert.equal(entry.command, "node", rel);
      assert.equal(entry.args[0], "-e", rel);
      assert.deepEqual(entry.args.slice(2), args, rel);
      // Nothing a client would expand, nothing JSON must escape.
      assert.doesNotMatch(entry.args[1]!, /\$\{|"/, rel);
      const text = readFileSync(join(dir, rel), "utf8");
      assert.ok(!text.includes(process.execPath), `${rel} names this machine's node`);
      assert.ok(!text.includes(CLI), `${rel} names this machine's contractpin`);
      const backup = join(dir, dirname(rel), ".contractpin-backup", rel.split("/").pop()!);
      assert.match(
        wrap.stdout,
        new RegExp(`wrapped 1; backup: ${backup.replace(/[.$]/g, "\\$&")}`),
      );
    }
    // Only the configs changed: the backups are ignored, never untracked files.
    assert.deepEqual(
      git(dir, "status", "--porcelain", "--untracked-files=all")
        .split("\n")
        .filter((l) => l !== "")
        .sort(),
      [" M .cursor/mcp.json", " M .mcp.json", " M .vscode/mcp.json"],
    );

    // A teammate's clone is elsewhere: each entry starts the guard there, as its
    // client starts it (Claude Code in the project; VS Code and Cursor wherever,
    // ${workspaceFolder} expanded).
    const clone = `${dir}-clone`;
    renameSync(dir, clone);
    const elsewhere = tempDir("contractpin-cwd-");
    for (const [rel, name] of expected) {
      const entry = entryOf(clone, rel, name);
      const transport = new StdioClientTransport({
        command: entry.command,
        args: entry.args.map((a) => a.replaceAll("${workspaceFolder}", clone)),
        env: { PATH: process.env["PATH"]!, HOME: process.env["HOME"]!, ...entry.env },
        cwd: rel === ".mcp.json" ? clone : elsewhere,
        stderr: "pipe",
      });
      let stderr = "";
      transport.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
      const client = new Client({ name: "team-test", version: "1.0.0" }, { capabilities: {} });
      await client.connect(transport);
      try {
        const { tools } = await client.listTools();
        assert.ok(tools.length > 0, `${rel}: ${stderr}`);
        assert.doesNotMatch(stderr, /withheld/, rel);
      } finally {
        await client.close();
      }
    }
    renameSync(clone, dir);

    // unwrap, then a second round: the files are back byte for byte, one backup each, nothing untracked.
    for (const command of [["unwrap"], ["wrap"], ["unwrap"]]) {
      const r = runCli(command, { cwd: dir });
      assert.equal(r.code, 0, r.stdout + r.stderr);
    }
    for (const [rel, text] of Object.entries(files)) {
      assert.equal(readFileSync(join(dir, rel), "utf8"), text, rel);
    }
    assert.equal(git(dir, "status", "--porcelain", "--untracked-files=all"), "");
    const ignored = git(dir, "status", "--porcelain", "--ignored", "--untracked-files=all");
    assert.deepEqual(
      ignored
        .split("\n")
        .filter((l) => l.includes("contractpin-backup"))
        .sort(),
      [
        "!! .contractpin-backup/.gitignore",
        "!! .contractpin-backup/.mcp.json",
        "!! .cursor/.contractpin-backup/.gitignore",
        "!! .cursor/.contractpin-backup/mcp.json",
        "!! .vscode/.contractpin-backup/.gitignore",
        "!! .vscode/.contractpin-backup/mcp.json",
      ],
    );
  });

  it("in a fresh clone before npm ci, each wrapped entry says to run npm ci, in one line, and exits 2", () => {
    const { dir } = project(true);
    const wrap = runCli(["wrap"], { cwd: dir });
    assert.equal(wrap.code, 0, wrap.stdout + wrap.stderr);
    git(dir, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "wrapped");
    // What a teammate has after `git clone`: the configs and the lock, no node_modules.
    const clone = join(tempDir("contractpin-clone-"), "app");
    git(dirname(clone), "clone", "-q", dir, clone);
    const elsewhere = tempDir("contractpin-cwd-");
    const initialize = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "t", version: "1" },
      },
    });
    for (const [rel, name] of [
      [".mcp.json", "claude-memory"],
      [".vscode/mcp.json", "vscode-memory"],
      [".cursor/mcp.json", "cursor-memory"],
    ] as const) {
      const entry = entryOf(clone, rel, name);
      // As its client starts it: Claude Code in the project, VS Code and Cursor anywhere.
      const r = spawnSync(
        entry.command,
        entry.args.map((a) => a.replaceAll("${workspaceFolder}", clone)),
        {
          cwd: rel === ".mcp.json" ? clone : elsewhere,
          env: { PATH: process.env["PATH"]!, HOME: process.env["HOME"]!, ...entry.env },
          input: `${initialize}\n`,
          encoding: "utf8",
          timeout: 30_000,
        },
      );
      assert.equal(r.status, 2, `${rel}: ${r.stderr}`);
      assert.equal(r.stdout, "", rel);
      const script = join(clone, "node_modules/contractpin/dist/bin/contractpin.cjs");
      assert.equal(
        r.stderr,
        `contractpin: ${script} is missing or out of date: contractpin is not installed in this project; run npm ci in it (or npm install --save-dev contractpin), then restart the MCP client\n`,
        rel,
      );
    }
  });

  it("without contractpin installed in the project: this machine's paths, and a note that says why", () => {
    const { dir } = project(false);
    const wrap = runCli(["wrap"], { cwd: dir });
    assert.equal(wrap.code, 0, wrap.stdout + wrap.stderr);
    const entry = entryOf(dir, ".mcp.json", "claude-memory");
    assert.equal(entry.command, process.execPath);
    assert.deepEqual(entry.args.slice(-2), ["--lock", join(dir, "contractpin.lock")]);
    assert.equal(
      wrap.stdout.match(/note: contractpin is not installed in this project/g)?.length,
      3,
      wrap.stdout,
    );
  });

  it("--from a project config of another directory: this machine's paths, and a note that says so", () => {
    const { dir } = project(true);
    const elsewhere = tempDir("contractpin-elsewhere-");
    const wrap = runCli(
      ["wrap", "--from", join(dir, ".mcp.json"), "--lock", join(dir, "contractpin.lock")],
      { cwd: elsewhere },
    );
    assert.equal(wrap.code, 0, wrap.stdout + wrap.stderr);
    const entry = entryOf(dir, ".mcp.json", "claude-memory");
    assert.equal(entry.command, process.execPath);
    assert.match(
      wrap.stdout,
      /note: this is a project config, which a team commits, and its entries name this machine's node, contractpin and lock by absolute path, which other machines lack; run wrap in that project/,
    );
  });
});
