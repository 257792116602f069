import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { configLocations, importConfigs } from "../../src/config/discover.js";
import { isContractpinError } from "../../src/core/errors.js";
import { tempDir as newTempDir } from "../helpers/cleanup.js";
import { fakeSecrets, fixtureTree } from "./fixtures.js";

const paths = (platform: NodeJS.Platform, env: Record<string, string> = {}, home = "/home/ada") =>
  configLocations({ projectDir: "/work/p", home, platform, env }).map(
    (l) => `${l.scope} ${l.client}: ${l.path}`,
  );

describe("configLocations", () => {
  it("linux: project files first, then each client's user file", () => {
    assert.deepEqual(paths("linux"), [
      "project Claude Code: /work/p/.mcp.json",
      "project VS Code: /work/p/.vscode/mcp.json",
      "project Cursor: /work/p/.cursor/mcp.json",
      "project Zed: /work/p/.zed/settings.json",
      "project Gemini CLI: /work/p/.gemini/settings.json",
      "project Continue: /work/p/.continue/mcpServers",
      "user Claude Desktop: /home/ada/.config/Claude/claude_desktop_config.json",
      "user Claude Code: /home/ada/.claude.json",
      "user Cursor: /home/ada/.cursor/mcp.json",
      "user Windsurf: /home/ada/.codeium/windsurf/mcp_config.json",
      "user Codex: /home/ada/.codex/config.toml",
      "user Gemini CLI: /home/ada/.gemini/settings.json",
      "user Zed: /home/ada/.config/zed/settings.json",
      "user Continue: /home/ada/.continue/config.yaml",
      "user Cline: /home/ada/.config/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
    ]);
  });

  it("linux: XDG_CONFIG_HOME when absolute; CODEX_HOME", () => {
    const env = { XDG_CONFIG_HOME: "/xdg", CODEX_HOME: "/codex" };
    assert.ok(
      paths("linux", env).includes("user Claude Desktop: /xdg/Claude/claude_desktop_config.json"),
    );
    assert.ok(paths("linux", env).includes("user Codex: /codex/config.toml"));
    assert.ok(
      paths("linux", { XDG_CONFIG_HOME: "relative" }).includes(
        "user Claude Desktop: /home/ada/.config/Claude/claude_desktop_config.json",
      ),
    );
  });

  it("darwin: Claude Desktop and Cline under Library/Application Support, Zed under ~/.config", () => {
    const mac = paths("darwin", {}, "/Users/ada");
    assert.ok(
      mac.includes(
        "user Claude Desktop: /Users/ada/Library/Application Support/Claude/claude_desktop_config.json",
      ),
    );
    assert.ok(mac.includes("user Zed: /Users/ada/.config/zed/settings.json"));
    assert.ok(
      mac.includes(
        "user Cline: /Users/ada/Library/Application Support/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
      ),
    );
  });

  it("win32: Claude Desktop under %APPDATA%, the rest under the profile", () => {
    const win = configLocations({
      projectDir: "C:\\src\\p",
      home: "C:\\Users\\ada",
      platform: "win32",
      env: { APPDATA: "C:\\Users\\ada\\AppData\\Roaming" },
    }).map((l) => l.path);
    assert.deepEqual(win, [
      "C:\\src\\p\\.mcp.json",
      "C:\\src\\p\\.vscode\\mcp.json",
      "C:\\src\\p\\.cursor\\mcp.json",
      "C:\\src\\p\\.zed\\settings.json",
      "C:\\src\\p\\.gemini\\settings.json",
      "C:\\src\\p\\.continue\\mcpServers",
      "C:\\Users\\ada\\AppData\\Roaming\\Claude\\claude_desktop_config.json",
      "C:\\Users\\ada\\.claude.json",
      "C:\\Users\\ada\\.cursor\\mcp.json",
      "C:\\Users\\ada\\.codeium\\windsurf\\mcp_config.json",
      "C:\\Users\\ada\\.codex\\config.toml",
      "C:\\Users\\ada\\.gemini\\settings.json",
      "C:\\Users\\ada\\AppData\\Roaming\\Zed\\settings.json",
      "C:\\Users\\ada\\.continue\\config.yaml",
      "C:\\Users\\ada\\AppData\\Roaming\\Code\\User\\globalStorage\\saoudrizwan.claude-dev\\settings\\cline_mcp_settings.json",
    ]);
  });
});

function tempDir(): string {
  return newTempDir("contractpin-discover-");
}

async function rejectsCode(promise: Promise<unknown>, code: string): Promise<string> {
  let message = "";
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(isContractpinError(err, code), String(err));
    message = err.message;
    return true;
  });
  return message;
}

describe("importConfigs", () => {
  it("discovers every fixture of a project and a home, without conflict or secret", async () => {
    const { home, project } = fixtureTree();
    const locations = configLocations({ projectDir: project, home, platform: "linux", env: {} });
    const result = await importConfigs(
      locations.map((l) => l.path),
      { projectDir: project, home, required: false },
    );
    assert.equal(result.files.length, 9);
    const names = result.servers.map((s) => s.name);
    for (const name of [
      "project-memory",
      "vscode-memory",
      "cursor-memory",
      "memory",
      "local-memory",
      "codex-memory",
      "gemini-memory",
      "windsurf-memory",
      "cursor-user-memory",
    ]) {
      assert.ok(names.includes(name), name);
    }
    // ~/.claude.json's disabledMcpjsonServers turns off the .mcp.json server, and its warnings.
    assert.ok(!names.includes("legacy-tools"));
    assert.deepEqual(
      result.skipped.find((s) => s.name === "legacy-tools"),
      { name: "legacy-tools", file: path.join(project, ".mcp.json"), reason: "disabled" },
    );
    const visible = JSON.stringify([
      result.servers.map((s) => s.source),
      result.warnings,
      result.skipped,
    ]);
    for (const secret of fakeSecrets()) assert.ok(!visible.includes(secret), secret);
  });

  it("the same name in two files is CONFIG_CONFLICT naming both files", async () => {
    const dir = tempDir();
    const a = path.join(dir, "a.json");
    const b = path.join(dir, "b.toml");
    writeFileSync(a, JSON.stringify({ mcpServers: { github: { command: "x" } } }));
    writeFileSync(b, '[mcp_servers.github]\ncommand = "y"\n');
    const message = await rejectsCode(
      importConfigs([a, b], { projectDir: dir, required: true }),
      "CONFIG_CONFLICT",
    );
    assert.ok(message.includes(a) && message.includes(b), message);
    assert.match(message, /server github is defined differently in/);
  });

  it("the same server defined identically in .mcp.json and .vscode/mcp.json is one server", async () => {
    const dir = tempDir();
    const a = path.join(dir, ".mcp.json");
    mkdirSync(path.join(dir, ".vscode"));
    const b = path.join(dir, ".vscode", "mcp.json");
    const entry = { type: "stdio", command: "npx", args: ["-y", "pkg"] };
    writeFileSync(a, JSON.stringify({ mcpServers: { github: entry } }));
    writeFileSync(b, JSON.stringify({ servers: { github: entry } }));
    const result = await importConfigs([a, b], { projectDir: dir, required: true });
    assert.deepEqual(
      result.servers.map((s) => [s.name, s.file]),
      [["github", a]],
    );
  });

  it("the same name defined differently says so, naming the key that differs", async () => {
    const dir = tempDir();
    const a = path.join(dir, "a.json");
    const b = path.join(dir, "b.json");
    writeFileSync(a, JSON.stringify({ mcpServers: { github: { command: "x", args: ["1"] } } }));
    writeFileSync(b, JSON.stringify({ mcpServers: { github: { command: "x", args: ["2"] } } }));
    const message = await rejectsCode(
      importConfigs([a, b], { projectDir: dir, required: true }),
      "CONFIG_CONFLICT",
    );
    assert.match(
      message,
      /server github is defined differently in .*a\.json and .*b\.json \(its command differs\)/,
    );
  });

  it("a skipped server does not conflict; the same path twice is read once", async () => {
    const dir = tempDir();
    const a = path.join(dir, "a.json");
    const b = path.join(dir, "b.json");
    writeFileSync(a, JSON.stringify({ mcpServers: { github: { command: "x" } } }));
    writeFileSync(b, JSON.stringify({ mcpServers: { github: { command: "x", disabled: true } } }));
    const result = await importConfigs([a, b, path.join(dir, ".", "a.json")], {
      projectDir: dir,
      required: true,
    });
    assert.deepEqual(
      result.servers.map((s) => s.file),
      [a],
    );
    assert.deepEqual(result.files, [a, b]);
  });

  it("warns when two servers' secrets move to one variable with different values", async () => {
    const dir = tempDir();
    const a = path.join(dir, "a.json");
    const b = path.join(dir, "b.json");
    const server = (token: string) => ({ command: "x", env: { GITHUB_TOKEN: token } });
    writeFileSync(
      a,
      JSON.stringify({ mcpServers: { one: server("tok-one"), two: server("tok-one") } }),
    );
    writeFileSync(b, JSON.stringify({ mcpServers: { three: server("tok-three") } }));
    const result = await importConfigs([a, b], { projectDir: dir, required: true });
    const shared = result.warnings.filter((w) => w.includes("both refer to ${GITHUB_TOKEN}"));
    assert.equal(shared.length, 1);
    assert.match(shared[0]!, /^servers one .* and three /);
    assert.ok(!shared[0]!.includes("tok-"));
  });

  it("a missing file: CONFIG_INVALID when required, passed over when discovered", async () => {
    const dir = tempDir();
    const missing = path.join(dir, "nope.json");
    const message = await rejectsCode(
      importConfigs([missing], { projectDir: dir, required: true }),
      "CONFIG_INVALID",
    );
    assert.match(message, /nope\.json: no such file/);
    const result = await importConfigs([missing, path.join(dir, "no", "dir.json")], {
      projectDir: dir,
      required: false,
    });
    assert.deepEqual(result, { servers: [], skipped: [], warnings: [], files: [] });
  });

  it("a file without servers: CONFIG_INVALID when required, passed over when discovered", async () => {
    const dir = tempDir();
    mkdirSync(path.join(dir, ".gemini"));
    const settings = path.join(dir, ".gemini", "settings.json");
    writeFileSync(settings, '{"theme": "GitHub"}');
    await rejectsCode(
      importConfigs([settings], { projectDir: dir, required: true }),
      "CONFIG_INVALID",
    );
    const result = await importConfigs([settings], { projectDir: dir, required: false });
    assert.deepEqual(result.files, []);
  });

  it("a malformed file is CONFIG_INVALID even when discovered", async () => {
    const dir = tempDir();
    const bad = path.join(dir, ".mcp.json");
    writeFileSync(bad, '{"mcpServers": {');
    const message = await rejectsCode(
      importConfigs([bad], { projectDir: dir, required: false }),
      "CONFIG_INVALID",
    );
    assert.ok(message.startsWith(`${bad}: not valid JSON`), message);
  });
});
