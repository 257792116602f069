// The config set (SPEC.md 12): what a project's client configs ask a client
// to launch, against what the lock pins. Pure: the caller reads the files
// (config-set.ts); this file parses and compares.
import { isContractpinError } from "../core/errors.js";
import { toFinding, type Finding } from "../core/findings/finding.js";
import { sourceFindings } from "../core/findings/server-source.js";
import { runsGuard, WRAPPED_ENTRY_VARIABLE } from "../core/source/guard-command.js";
import type { Lock } from "../core/lock/lock.js";
import { configInvalid } from "./config-error.js";
import { detectFormat, EXPECTED_KEYS, serverEntries, type ServerEntry } from "./formats.js";
import { mapServer, type MapContext } from "./map-server.js";
import type { RawServer } from "./raw-server.js";
import { readConfigDocument } from "./read-document.js";
import { runnerPackage } from "../core/source/package-runner.js";
import { matchLock } from "./wrap/match-lock.js";

/** One config file as read by the caller. */
export interface ConfigInput {
  /** The file's name as reports show it. */
  file: string;
  /**
   * The client whose config it is ("Claude Code", ...): entries of one
   * client are one set for the guard-bypass rule. A file of no known
   * location is a client of its own (its name).
   */
  client: string;
  /** The folder a client opens with this config: `${workspaceFolder}`, and the project of `~/.claude.json`. */
  workspace: string;
  /** The lock covers it (`configs.files`): a file with no server list is not a config, and fails. */
  required?: boolean;
  /** The bytes, and the same with every wrapped entry unwrapped; or why the file could not be read. */
  read: { bytes: Uint8Array; unwrapped: Uint8Array } | { error: string };
}

/** One finding about a config: the file it is in, and the finding (its `server` is the entry's name). */
export interface ConfigFinding {
  file: string;
  finding: Finding;
}

/** One server entry of a config, as the checks see it. */
interface Entry {
  name: string;
  /** How the entry is imported: its file's workspace folder. */
  ctx: MapContext;
  file: string;
  client: string;
  /** The entry as the server it launches (a wrapped entry unwrapped). */
  raw: RawServer;
  /** The server a guard entry runs through `contractpin guard` (a wrapped entry: its own name). */
  guards?: string;
  /** A guard entry with no original kept in it: it launches nothing but the guard. */
  guardOnly: boolean;
}

/**
 * Checks every server entry of `inputs` against `lock`: an entry the lock
 * neither pins nor names in `configs.unpinned` is `config-server-unpinned`;
 * a pinned one whose entry launches anything other than the lock pins is
 * `config-launch-changed` (one finding per key that differs, or one saying
 * why it cannot be compared); an entry that launches a server another entry
 * of the same client runs through the guard is `config-guard-bypassed`; a
 * file that cannot be read or parsed is `config-unreadable`. Disabled entries
 * are checked too (a client's switch turns them on); an entry that another
 * of the same name overrides (Claude Code's local scope) is not launched and
 * is passed over. In file order, then entry order.
 *
 * @param ctx what the import needs (`${workspaceFolder}`, `${userHome}`, the lock's directory).
 */
export function checkConfigs(
  lock: Lock,
  inputs: readonly ConfigInput[],
  context: Omit<MapContext, "projectDir">,
): ConfigFinding[] {
  const findings: ConfigFinding[] = [];
  const entries: Entry[] = [];
  for (const input of inputs) {
    const read = readEntries(input, { ...context, projectDir: input.workspace });
    if ("error" in read) {
      const finding = toFinding({ rule: "config-unreadable", after: read.error });
      findings.push({ file: input.file, finding });
    } else entries.push(...read.entries);
  }
  const guarded = new Map<string, Set<string>>();
  for (const e of entries) {
    if (e.guards === undefined) continue;
    const set = guarded.get(e.client) ?? new Set<string>();
    set.add(e.guards);
    guarded.set(e.client, set);
  }
  const unpinned = new Set(lock.configs?.unpinned ?? []);
  for (const entry of entries) {
    const at = (finding: Finding) => findings.push({ file: entry.file, finding });
    if (entry.guardOnly) continue;
    if (entry.guards === undefined) {
      const around = bypassed(entry, guarded.get(entry.client), lock);
      if (around !== undefined) {
        at(toFinding({ rule: "config-guard-bypassed", after: around }, undefined, entry.name));
        continue;
      }
    }
    if (Object.hasOwn(lock.servers, entry.name)) {
      for (const f of launchFindings(entry, lock)) at(f);
    } else if (!unpinned.has(entry.name)) {
      at(toFinding({ rule: "config-server-unpinned" }, undefined, entry.name));
    }
  }
  return findings;
}

/** The entries of one file, or why it cannot be read. */
function readEntries(
  input: ConfigInput,
  ctx: MapContext,
): { entries: Entry[] } | { error: string } {
  const { projectDir } = ctx;
  if ("error" in input.read) return { error: input.read.error };
  try {
    const required = input.required === true;
    const original = entriesOf(input.read.bytes, input.file, projectDir, required);
    const unwrapped =
      input.read.unwrapped === input.read.bytes
        ? original
        : entriesOf(input.read.unwrapped, input.file, projectDir, required);
    const entries: Entry[] = [];
    unwrapped.forEach((entry, i) => {
      // Claude Code's local scope wins over its user scope: the overridden entry is not launched.
      if (entry.skip?.startsWith("overridden") === true) return;
      const before = original[i]?.raw ?? entry.raw;
      const guard = guardOf(before);
      const wrapped = guard !== undefined && Object.hasOwn(before.env, WRAPPED_ENTRY_VARIABLE);
      const item: Entry = {
        name: entry.name,
        ctx,
        file: input.file,
        client: input.client,
        raw: entry.raw,
        // A wrapped entry is read as what it wraps (unwrap's plan); it guards its own name.
        guardOnly: guard !== undefined && (!wrapped || guardOf(entry.raw) !== undefined),
      };
      if (guard !== undefined) item.guards = wrapped ? entry.name : guard;
      entries.push(item);
    });
    return { entries };
  } catch (err) {
    if (isContractpinError(err, "CONFIG_INVALID")) return { error: err.message };
    throw err;
  }
}

function entriesOf(
  bytes: Uint8Array,
  file: string,
  projectDir: string,
  required: boolean,
): ServerEntry[] {
  const doc = readConfigDocument(bytes, file);
  const format = detectFormat(doc);
  if (format === undefined && required) {
    throw configInvalid(`${file}: not an MCP client config: expected ${EXPECTED_KEYS}`);
  }
  return format === undefined ? [] : serverEntries(doc, format, file, projectDir).entries;
}

/**
 * The server an entry runs through `contractpin guard` (the word after
 * `guard` that is not an option; "" when none), or undefined when the entry
 * does not run the guard.
 */
function guardOf(raw: RawServer): string | undefined {
  if (raw.command === undefined) return undefined;
  const command = [raw.command, ...raw.args];
  if (!runsGuard({ transport: "stdio", command, env: raw.env })) return undefined;
  const at = command.indexOf("guard");
  return command.slice(at + 1).find((a) => !a.startsWith("-")) ?? "";
}

/**
 * The guarded server that an unguarded entry reaches around the guard: one
 * of its client's guarded names that is the entry's own, or whose pinned
 * launch line the entry launches exactly.
 */
function bypassed(
  entry: Entry,
  guarded: ReadonlySet<string> | undefined,
  lock: Lock,
): string | undefined {
  const { ctx } = entry;
  if (guarded === undefined) return undefined;
  if (guarded.has(entry.name)) return entry.name;
  for (const name of guarded) {
    if (!Object.hasOwn(lock.servers, name)) continue;
    const match = matchLock(name, entry.raw, entry.file, ctx, {
      ...lock,
      servers: { [name]: lock.servers[name]! },
    });
    if (match.ok) return name;
  }
  return undefined;
}

/** What differs between a pinned server's entry and the lock: none when it launches what the lock pins. */
function launchFindings(entry: Entry, lock: Lock): Finding[] {
  const { ctx } = entry;
  const match = matchLock(entry.name, entry.raw, entry.file, ctx, lock);
  if (match.ok) return [];
  const pinned = lock.servers[entry.name]!;
  const mapped = mapServer(entry.name, entry.raw, entry.file, ctx);
  const found =
    "skip" in mapped || pinned.transport === "file"
      ? []
      : sourceFindings(
          entry.name,
          pinned,
          mapped.server.source,
          runnerPackage,
          "config-launch-changed",
        );
  if (found.length > 0) return found;
  return [toFinding({ rule: "config-launch-changed", after: match.reason }, undefined, entry.name)];
}
