import { runsGuard } from "../core/source/guard-command.js";
import { configInvalid } from "./config-error.js";
import { detectFormat, EXPECTED_KEYS, serverEntries, type ConfigFormat } from "./formats.js";
import { mapServer, type ImportedServer } from "./map-server.js";
import { readConfigDocument, type ConfigDocument } from "./read-document.js";

export type { ConfigFormat } from "./formats.js";
export type { ImportedServer } from "./map-server.js";

/** A server of a config that is not imported, and why. */
export interface SkippedServer {
  name: string;
  file: string;
  /** "disabled", or a sentence saying what stops the import and how to fix it. */
  reason: string;
}

/** Everything one config file gives. */
export interface ImportResult {
  format: ConfigFormat;
  /** The servers to pin, in the file's order. */
  servers: ImportedServer[];
  skipped: SkippedServer[];
  /** One line each, starting with the file's name; none quotes a secret. */
  warnings: string[];
  /**
   * Claude Code's `disabledMcpjsonServers` for the project (from
   * `~/.claude.json`): servers of the project's `.mcp.json` to skip. Applied
   * by importConfigs (discover.ts) across files; empty for other formats.
   */
  disabledProjectServers: string[];
}

/** Where the import runs. */
export interface ImportOptions {
  /** The project directory: `${workspaceFolder}`, and the key of `~/.claude.json`'s `projects`. */
  projectDir: string;
  /** The home directory, for `${userHome}` (Cursor); without it such a server is skipped. */
  home?: string;
  /** The lock's directory: `${workspaceFolder}` is written relative to it (MapContext). */
  lockDir?: string;
  /** The environment: a server whose `${input:ID}` variable is unset in it is skipped (MapContext). */
  env?: Record<string, string | undefined>;
}

/**
 * Imports every server of one MCP client config file, recognising its format
 * by content (see ConfigFormat). Pure: the caller reads the file.
 *
 * The result never holds a literal secret in `servers[].source`: references
 * stay references (`${env:VAR}` becomes `${VAR}`, `${input:ID}` becomes
 * `${CONTRACTPIN_INPUT_ID}`), literal credentials in env and every literal
 * header value become references whose values are in `secretValues`, and a
 * server with a literal credential in its args or URL is skipped.
 *
 * @param file the file's name, used in every message.
 * @throws ContractpinError CONFIG_INVALID when the file is not valid JSON or
 *   TOML (with the position), holds no server list contractpin knows, or has
 *   a server key of the wrong type.
 */
export function importConfig(
  bytes: Uint8Array,
  file: string,
  options: ImportOptions,
): ImportResult {
  const doc = readConfigDocument(bytes, file);
  const format = detectFormat(doc);
  if (format === undefined) {
    throw configInvalid(`${file}: not an MCP client config: expected ${EXPECTED_KEYS}`);
  }
  return importDocument(doc, format, file, options);
}

/** Why an entry that runs contractpin's guard, not a server, is not imported. */
export const GUARD_SKIP =
  "it runs contractpin guard, not a server: a guard starts the server the lock pins under its name, so pin that server (its own command) instead";

/** importConfig for a document already parsed and recognised. */
export function importDocument(
  doc: ConfigDocument,
  format: ConfigFormat,
  file: string,
  options: ImportOptions,
): ImportResult {
  const { entries, disabledProjectServers } = serverEntries(doc, format, file, options.projectDir);
  const result: ImportResult = {
    format,
    servers: [],
    skipped: [],
    warnings: [],
    disabledProjectServers,
  };
  for (const { name, raw, skip } of entries) {
    if (skip !== undefined) {
      result.skipped.push({ name, file, reason: skip });
      continue;
    }
    const mapped = mapServer(name, raw, file, options);
    if (!("skip" in mapped) && runsGuard(mapped.server.source)) {
      // Pinned, it would make the guard start a guard of itself (a wrapped entry is read unwrapped: discover.ts).
      result.skipped.push({ name, file, reason: GUARD_SKIP });
      continue;
    }
    result.warnings.push(...mapped.warnings);
    if ("skip" in mapped) result.skipped.push({ name, file, reason: mapped.skip });
    else result.servers.push(mapped.server);
  }
  return result;
}
