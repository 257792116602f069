import path from "node:path";
import { canonicalize } from "../core/json/canonical-json.js";
import { WRAPPED_ENTRY_VARIABLE } from "../core/source/guard-command.js";
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
import { readConfigFile } from "./config-file.js";

export {
  configLocations,
  selectConfigs,
  type ConfigLocation,
  type LocationOptions,
  type SelectedConfigs,
} from "./locations.js";

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
  const got = readConfigFile(file);
  if ("bytes" in got) return got.bytes;
  if (got.absent && !required) return undefined;
  throw configInvalid(`${file}: ${got.why}`);
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
    const read = await readIfPresent(file, options.required);
    if (read === undefined) continue;
    const bytes = await unwrapped(read, file, options);
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

/**
 * The config as `contractpin unwrap` would restore it, when `wrap` rewrote
 * entries of it: each wrapped entry is read as the server it wraps (its
 * original text, kept in the entry), never as the guard that runs it; a lock
 * that pinned the guard would make the guard start itself. Unwrap's own plan
 * does it (src/config/wrap/plan.ts), with its check that the result parses
 * and holds every other entry as before. A file without the marker is as read.
 */
export async function unwrapped(
  bytes: Uint8Array,
  file: string,
  options: Pick<ImportConfigsOptions, "projectDir" | "home" | "required">,
): Promise<Uint8Array> {
  if (
    !Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).includes(WRAPPED_ENTRY_VARIABLE)
  ) {
    // Spelled otherwise (a \u escape), the entry is still known by its env: import-config.ts skips it.
    return bytes;
  }
  const { planFile } = await import("./wrap/plan.js");
  const ctx = {
    projectDir: options.projectDir,
    required: options.required,
    ...(options.home === undefined ? {} : { home: options.home }),
  };
  const plan = planFile(bytes, file, { unwrap: undefined }, ctx);
  return plan === undefined || plan.edits.length === 0 ? bytes : Buffer.from(plan.after, "utf8");
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
