// Where MCP clients keep their configs, and which of them a command reads.
import { readdirSync } from "node:fs";
import path from "node:path";

/** A place where an MCP client keeps its server list. */
export interface ConfigLocation {
  /** The client, for people: "Claude Code", "VS Code", ... */
  client: string;
  path: string;
  /** "project": in the project directory; "user": in the user's home or profile. */
  scope: "project" | "user";
  /** A folder whose `*.yaml`, `*.yml` and `*.json` files are configs (Continue's `.continue/mcpServers`). */
  folder?: true;
}

/** What configLocations needs to know about the machine. */
export interface LocationOptions {
  projectDir: string;
  home: string;
  platform: NodeJS.Platform;
  /** The environment: APPDATA (Windows), XDG_CONFIG_HOME (Linux), CODEX_HOME. */
  env: Record<string, string | undefined>;
}

/**
 * Every place an MCP client config may be, project ones first, in a fixed
 * order; whether each exists is for importConfigs to find out. Pure.
 */
export function configLocations(options: LocationOptions): ConfigLocation[] {
  const { projectDir, home, platform, env } = options;
  const p = platform === "win32" ? path.win32 : path.posix;
  // XDG_CONFIG_HOME counts only when absolute (XDG Base Directory spec).
  const xdg = env["XDG_CONFIG_HOME"];
  const desktopDir =
    platform === "darwin"
      ? p.join(home, "Library", "Application Support")
      : platform === "win32"
        ? (env["APPDATA"] ?? p.join(home, "AppData", "Roaming"))
        : xdg !== undefined && p.isAbsolute(xdg)
          ? xdg
          : p.join(home, ".config");
  const project = (client: string, ...parts: string[]): ConfigLocation => ({
    client,
    path: p.join(projectDir, ...parts),
    scope: "project",
  });
  const user = (client: string, file: string): ConfigLocation => ({
    client,
    path: file,
    scope: "user",
  });
  // Zed: ~/.config/zed (XDG_CONFIG_HOME on Linux), %APPDATA%\Zed on Windows.
  const zedDir =
    platform === "win32"
      ? p.join(desktopDir, "Zed")
      : platform === "linux"
        ? p.join(desktopDir, "zed")
        : p.join(home, ".config", "zed");
  return [
    project("Claude Code", ".mcp.json"),
    project("VS Code", ".vscode", "mcp.json"),
    project("Cursor", ".cursor", "mcp.json"),
    project("Zed", ".zed", "settings.json"),
    project("Gemini CLI", ".gemini", "settings.json"),
    { ...project("Continue", ".continue", "mcpServers"), folder: true },
    user("Claude Desktop", p.join(desktopDir, "Claude", "claude_desktop_config.json")),
    user("Claude Code", p.join(home, ".claude.json")),
    user("Cursor", p.join(home, ".cursor", "mcp.json")),
    user("Windsurf", p.join(home, ".codeium", "windsurf", "mcp_config.json")),
    user("Codex", p.join(env["CODEX_HOME"] || p.join(home, ".codex"), "config.toml")),
    user("Gemini CLI", p.join(home, ".gemini", "settings.json")),
    user("Zed", p.join(zedDir, "settings.json")),
    user("Continue", p.join(home, ".continue", "config.yaml")),
    user(
      "Cline",
      p.join(
        desktopDir,
        "Code",
        "User",
        "globalStorage",
        "saoudrizwan.claude-dev",
        "settings",
        "cline_mcp_settings.json",
      ),
    ),
  ];
}

/** The config files a command reads, and whether each must exist. */
export interface SelectedConfigs {
  paths: string[];
  /** true for files named with --from: see ImportConfigsOptions.required. */
  required: boolean;
  /** Where the command looked, for the line that says nothing was found (a folder as `DIR/*.yaml`). */
  searched: string[];
}

/**
 * The files `init`, `wrap` and `unwrap` read: the ones named with --from, or
 * else the discovered project configs (and with `user` the user-level ones).
 */
export function selectConfigs(
  from: string[] | undefined,
  user: boolean,
  options: Omit<LocationOptions, "platform" | "env"> &
    Partial<Pick<LocationOptions, "platform" | "env">>,
): SelectedConfigs {
  if (from !== undefined) return { paths: from, required: true, searched: from };
  const locations = configLocations({
    platform: process.platform,
    env: process.env,
    ...options,
  }).filter((l) => l.scope === "project" || user);
  return {
    // A project in the home folder has ~/.gemini/settings.json as both: read once.
    paths: [...new Set(locations.flatMap((l) => (l.folder ? folderConfigs(l.path) : [l.path])))],
    required: false,
    searched: locations.map((l) => (l.folder ? path.join(l.path, "*.yaml") : l.path)),
  };
}

/** The config files of a folder location, sorted by name; none when it is missing. */
export function folderConfigs(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((n) => /\.(ya?ml|json)$/i.test(n))
    .sort()
    .map((n) => path.join(dir, n));
}
