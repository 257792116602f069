import { pathKey } from "../core/json/json-value.js";
import type { ConfigDocument } from "./read-document.js";
import { continueEntries, continueServers, zedEntries } from "./client-formats.js";
import { member, readRawServer, stringList, type ServerEntry } from "./raw-server.js";

export type { ServerEntry } from "./raw-server.js";

/**
 * The shapes of client config files, told apart by content:
 *
 * - `vscode`: VS Code's `mcp.json`, servers under a top-level `servers`;
 * - `claude-code-user`: Claude Code's `~/.claude.json`, servers under the
 *   top-level `mcpServers` (user scope) and under `projects[DIR].mcpServers`
 *   (local scope, for the project in DIR);
 * - `mcp-servers`: servers under a top-level `mcpServers`, shared by Claude
 *   Desktop, Claude Code's `.mcp.json`, Cursor, Windsurf and Gemini CLI
 *   (Cline's `cline_mcp_settings.json` too);
 * - `codex`: Codex's TOML, one `[mcp_servers.NAME]` table per server;
 * - `zed`: Zed's `settings.json`, servers under `context_servers`;
 * - `continue`: Continue's YAML, a list of servers under `mcpServers`, each
 *   with a `name` (client-formats.ts).
 */
export type ConfigFormat =
  "vscode" | "claude-code-user" | "mcp-servers" | "codex" | "zed" | "continue";

/** The server entries of one config file, in the file's order. */
export interface FormatContent {
  entries: ServerEntry[];
  /**
   * Claude Code's `disabledMcpjsonServers` for the project: names of servers
   * in the project's `.mcp.json` that the user turned off.
   */
  disabledProjectServers: string[];
}

/** The expected top-level keys, for the message about a file that has none. */
export const EXPECTED_KEYS =
  'a top-level "mcpServers" object (Claude Desktop, Claude Code, Cursor, Windsurf, Gemini CLI, Cline), ' +
  '"servers" (VS Code), "context_servers" (Zed), [mcp_servers.NAME] tables (Codex) ' +
  'or, in a .yaml file, an "mcpServers" list (Continue)';

/** The format of a parsed config, or undefined when it holds no server list contractpin knows. */
export function detectFormat(doc: ConfigDocument): ConfigFormat | undefined {
  if (doc.syntax === "toml") return member(doc.value, "mcp_servers") ? "codex" : undefined;
  if (doc.syntax === "yaml")
    return continueServers(doc.value) === undefined ? undefined : "continue";
  if (member(doc.value, "projects") !== undefined) return "claude-code-user";
  if (member(doc.value, "mcpServers") !== undefined) return "mcp-servers";
  if (member(doc.value, "servers") !== undefined) return "vscode";
  if (member(doc.value, "context_servers") !== undefined) return "zed";
  return undefined;
}

function entriesOf(
  file: string,
  container: unknown,
  key: string,
  prefix = "",
  at: string[] = [],
): ServerEntry[] {
  const servers = member(container, key) ?? {};
  return Object.entries(servers).map(([name, entry]) => {
    const raw = readRawServer(entry, `${file}: ${pathKey(prefix + key, name)}`);
    const path = [...at, key, name];
    return raw.disabled ? { name, raw, path, skip: "disabled" } : { name, raw, path };
  });
}

/** Paths compare equal when they differ only in trailing or back slashes. */
function samePath(a: string, b: string): boolean {
  const norm = (p: string) => p.replace(/\\/g, "/").replace(/(?!^)\/+$/, "");
  return norm(a) === norm(b);
}

function claudeCodeUser(doc: ConfigDocument, file: string, projectDir: string): FormatContent {
  const projects = member(doc.value, "projects") ?? {};
  const key =
    Object.keys(projects).find((k) => k === projectDir) ??
    Object.keys(projects).find((k) => samePath(k, projectDir));
  const project = key === undefined ? undefined : member(projects, key);
  const local = entriesOf(
    file,
    project,
    "mcpServers",
    `projects[${JSON.stringify(key)}].`,
    key === undefined ? [] : ["projects", key],
  );
  // Claude Code's local scope wins over its user scope for one name.
  const user = entriesOf(file, doc.value, "mcpServers").map((e) =>
    local.some((l) => l.name === e.name)
      ? {
          ...e,
          skip: `overridden by the entry of the same name in projects[${JSON.stringify(key)}]`,
        }
      : e,
  );
  return {
    entries: [...user, ...local],
    disabledProjectServers: stringList(project, "disabledMcpjsonServers") ?? [],
  };
}

/** Gemini CLI's `mcp.allowed` and `mcp.excluded` turn servers off by name. */
function applyGeminiLists(doc: ConfigDocument, entries: ServerEntry[]): ServerEntry[] {
  const mcp = member(doc.value, "mcp");
  const allowed = stringList(mcp, "allowed");
  const excluded = stringList(mcp, "excluded") ?? [];
  return entries.map((e) =>
    e.skip === undefined &&
    (excluded.includes(e.name) || (allowed !== undefined && !allowed.includes(e.name)))
      ? { ...e, skip: "disabled" }
      : e,
  );
}

/**
 * The server entries of a config in `format`.
 *
 * @param projectDir the project whose local servers are read from `~/.claude.json`.
 * @throws ContractpinError CONFIG_INVALID when an entry has a key of the wrong type.
 */
export function serverEntries(
  doc: ConfigDocument,
  format: ConfigFormat,
  file: string,
  projectDir: string,
): FormatContent {
  switch (format) {
    case "claude-code-user":
      return claudeCodeUser(doc, file, projectDir);
    case "mcp-servers":
      return {
        entries: applyGeminiLists(doc, entriesOf(file, doc.value, "mcpServers")),
        disabledProjectServers: [],
      };
    case "vscode":
      return { entries: entriesOf(file, doc.value, "servers"), disabledProjectServers: [] };
    case "codex":
      return { entries: entriesOf(file, doc.value, "mcp_servers"), disabledProjectServers: [] };
    case "zed":
      return { entries: zedEntries(doc.value, file), disabledProjectServers: [] };
    case "continue":
      return { entries: continueEntries(doc.value, file), disabledProjectServers: [] };
  }
}
