import { readdirSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { canonicalize } from "../core/canonical-json.js";
import { configConflict, configInvalid } from "./config-error.js";
import { detectFormat } from "./formats.js";
import {
  importConfig,
  importDocument,
  type ImportedServer,
  type ImportResult,
  type SkippedServer,
} from "./import-config.js";
import { readConfigDocument } from "./read-document.js";

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
    paths: locations.flatMap((l) => (l.folder ? folderConfigs(l.path) : [l.path])),
    required: false,
    searched: locations.map((l) => (l.folder ? path.join(l.path, "*.yaml") : l.path)),
  };
}

/** The config files of a folder location, sorted by name; none when it is missing. */
function folderConfigs(dir: string): string[] {
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

/** The servers of several config files, merged. */
export interface ImportedConfigs {
  servers: ImportedServer[];
  skipped: SkippedServer[];
  warnings: string[];
  /** The files that were read and held a server list, in order. */
  files: string[];
}

/** How importConfigs treats the files it is given. */
export interface ImportConfigsOptions {
  projectDir: string;
  /** For `${userHome}`. */
  home?: string;
  /** The lock's directory, which `${workspaceFolder}` is written relative to (MapContext). */
  lockDir?: string;
  /** The environment: a server whose `${input:ID}` variable is unset is skipped (MapContext). */
  env?: Record<string, string | undefined>;
  /**
   * true (for `--from`): a missing file, or one with no server list, is
   * CONFIG_INVALID. false (for discovered locations): such a file is passed
   * over. A file that exists but is malformed is CONFIG_INVALID either way.
   */
  required: boolean;
}

/**
 * A config file's bytes; undefined for a missing file that is not required.
 *
 * @throws ContractpinError CONFIG_INVALID for a file that cannot be read (or is required and missing).
 */
export async function readIfPresent(
  file: string,
  required: boolean,
): Promise<Uint8Array | undefined> {
  try {
    return await readFile(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (!required && (code === "ENOENT" || code === "ENOTDIR")) return undefined;
    const why = code === "ENOENT" ? "no such file" : `cannot be read (${code ?? String(err)})`;
    throw configInvalid(`${file}: ${why}`, err);
  }
}

/**
 * Reads and imports each config file, then merges them. Servers that Claude
 * Code's `disabledMcpjsonServers` turns off in a `.mcp.json` are skipped as
 * disabled. The same path given twice (a project that is the home directory)
 * is read once.
 *
 * @throws ContractpinError CONFIG_INVALID for a file that is malformed (or,
 *   when `required`, missing or without servers); CONFIG_CONFLICT when two
 *   files define a server of the same name, naming both files.
 */
export async function importConfigs(
  paths: string[],
  options: ImportConfigsOptions,
): Promise<ImportedConfigs> {
  const results: ImportResult[] = [];
  const files: string[] = [];
  const seen = new Set<string>();
  for (const file of paths) {
    const resolved = path.resolve(file);
    if (seen.has(resolved)) continue;
    seen.add(resolved);
    const bytes = await readIfPresent(file, options.required);
    if (bytes === undefined) continue;
    let result: ImportResult;
    if (options.required) {
      result = importConfig(bytes, file, options);
    } else {
      const doc = readConfigDocument(bytes, file);
      const format = detectFormat(doc);
      if (format === undefined) continue; // e.g. a Gemini settings.json without servers
      result = importDocument(doc, format, file, options);
    }
    results.push(result);
    files.push(file);
  }
  return merge(results, files);
}

function merge(results: ImportResult[], files: string[]): ImportedConfigs {
  const disabled = new Set(results.flatMap((r) => r.disabledProjectServers));
  const merged: ImportedConfigs = { servers: [], skipped: [], warnings: [], files };
  const origin = new Map<string, ImportedServer>();
  for (const result of results) {
    merged.skipped.push(...result.skipped);
    const off = result.servers.filter(
      (s) => path.basename(s.file) === ".mcp.json" && disabled.has(s.name),
    );
    // A disabled server's warnings (which variables to set) would only mislead.
    const labels = off.map((s) => `${s.file}: server ${s.name}: `);
    merged.warnings.push(...result.warnings.filter((w) => !labels.some((l) => w.startsWith(l))));
    for (const server of result.servers) {
      if (off.includes(server)) {
        merged.skipped.push({ name: server.name, file: server.file, reason: "disabled" });
        continue;
      }
      const first = origin.get(server.name);
      if (first !== undefined) {
        // A team using two clients defines one server in both files: that is one server.
        const differs = differingKey(first, server);
        if (differs === undefined) continue;
        throw configConflict(
          `server ${server.name} is defined differently in ${first.file} and ${server.file} ` +
            `(its ${differs} differs); the lock's server names are the configs' names, so make ` +
            "the two definitions the same, rename it in one of the files, or import one file with --from",
        );
      }
      origin.set(server.name, server);
      merged.servers.push(server);
    }
  }
  merged.warnings.push(...sharedVariables(merged.servers));
  return merged;
}

/**
 * The first key in which two imported definitions of one server differ, or
 * undefined when they are the same (secret values included). Names the key,
 * never a value, which may be a secret.
 */
function differingKey(a: ImportedServer, b: ImportedServer): string | undefined {
  const same = (x: unknown, y: unknown) => canonicalize(x) === canonicalize(y);
  const sa = a.source as unknown as Record<string, unknown>;
  const sb = b.source as unknown as Record<string, unknown>;
  const keys = ["transport", "command", "env", "cwd", "url", "headers", "auth"];
  const key = keys.find((k) => !same(sa[k] ?? null, sb[k] ?? null));
  if (key !== undefined) return key;
  return same(a.secretValues, b.secretValues) ? undefined : "secret values";
}

/**
 * One warning per variable that two servers' literal secrets were both moved
 * to with different values (two GITHUB_TOKENs): one variable cannot hold both
 * when verifying. The values themselves are never named.
 */
function sharedVariables(servers: ImportedServer[]): string[] {
  const first = new Map<string, ImportedServer>();
  const warnings: string[] = [];
  for (const server of servers) {
    for (const [variable, value] of Object.entries(server.secretValues)) {
      const other = first.get(variable);
      if (other === undefined) first.set(variable, server);
      else if (other.secretValues[variable] !== value) {
        warnings.push(
          `servers ${other.name} (${other.file}) and ${server.name} (${server.file}) both refer to ` +
            `\${${variable}} but their configs hold different values for it; when verifying, ` +
            `one value of ${variable} serves both`,
        );
      }
    }
  }
  return warnings;
}
