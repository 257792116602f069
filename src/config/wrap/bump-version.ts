import type { Lock } from "../../core/lock/lock.js";
import type { ServerSource } from "../../core/source/server-source.js";
import { configInvalid } from "../config-error.js";
import { detectFormat, serverEntries } from "../formats.js";
import { readConfigDocument, readConfigText } from "../read-document.js";
import { ORIGINAL_VARIABLE } from "./guard-fields.js";
import { jsonEntry } from "./json-entry.js";
import { matchLock } from "./match-lock.js";
import type { Edit, PlanContext } from "./plan.js";
import { memberAt, sameValue, withMember } from "./same-value.js";
import { tomlEntry, tomlString } from "./toml-entry.js";

/** One server whose version changes: its argument as the lock had it, and as it will be. */
export interface VersionBump {
  /** The lock as it was, that the config entry must match (as wrap matches it). */
  before: Lock;
  /** The server's new definition in the lock. */
  after: Record<string, ServerSource>;
  /** Per server: the old argument and the new one (`pkg@1.0.0` -> `pkg@1.1.0`). */
  args: Record<string, { from: string; to: string }>;
}

/** A config file's new text and the servers changed in it (after === before when none). */
export interface BumpPlan {
  file: string;
  before: string;
  after: string;
  changed: string[];
  /** Entries pinned under an upgraded name that could not be edited, and why. */
  left: Array<{ name: string; reason: string }>;
}

function countOf(text: string, part: string): number {
  return text.split(part).length - 1;
}

/** Why upgrade --write leaves a wrapped entry as it is. */
export const WRAPPED_LEFT =
  "it is wrapped: its guard runs what the lock now pins, but the original kept for 'contractpin unwrap' still names the old version; to bump it too, run 'contractpin unwrap', then 'upgrade --write', then 'contractpin wrap'";

/**
 * Plans the version bump of one client config: each entry that defines
 * exactly what the lock pins under its name (matchLock, as wrap decides) has
 * the string holding the old package spec replaced by the new one; every
 * other byte of the file is kept (comments, layout). Checked before it is
 * returned: the new text must parse, match the new lock entry, and hold
 * every other value exactly as before. Pure.
 *
 * @returns undefined for a file that holds no server list.
 */
export function planBump(
  bytes: Uint8Array,
  file: string,
  bump: VersionBump,
  ctx: PlanContext,
): BumpPlan | undefined {
  const { doc, text } = readConfigText(bytes, file);
  const format = detectFormat(doc);
  if (format === undefined) return undefined;
  const plan: BumpPlan = { file, before: text, after: text, changed: [], left: [] };
  const edits: Edit[] = [];
  const edited: string[][] = [];
  for (const entry of serverEntries(doc, format, file, ctx.projectDir).entries) {
    const arg = Object.hasOwn(bump.args, entry.name) ? bump.args[entry.name] : undefined;
    if (arg === undefined || entry.skip !== undefined) continue;
    if (Object.hasOwn(entry.raw.env, ORIGINAL_VARIABLE)) {
      // Read as the guard it is, not compared as a server: its version lives in the kept original.
      plan.left.push({ name: entry.name, reason: WRAPPED_LEFT });
      continue;
    }
    const match = matchLock(entry.name, entry.raw, file, ctx, bump.before);
    if (!match.ok) {
      plan.left.push({ name: entry.name, reason: match.reason });
      continue;
    }
    const span =
      doc.syntax === "json" ? jsonEntry(text, entry.path)?.span : tomlEntry(text, entry.name)?.span;
    const written =
      doc.syntax === "json"
        ? [[JSON.stringify(arg.from), JSON.stringify(arg.to)]]
        : [
            [tomlString(arg.from), tomlString(arg.to)],
            [`'${arg.from}'`, `'${arg.to}'`],
          ];
    const inside = span === undefined ? "" : text.slice(span[0], span[1]);
    const form = written.find(([from]) => countOf(inside, from!) === 1);
    if (span === undefined || form === undefined) {
      plan.left.push({
        name: entry.name,
        reason: `${arg.from} is not written there once as a plain string`,
      });
      continue;
    }
    const at = span[0] + inside.indexOf(form[0]!);
    edits.push({ span: [at, at + form[0]!.length], text: form[1]! });
    edited.push(doc.syntax === "toml" ? ["mcp_servers", entry.name] : entry.path);
    plan.changed.push(entry.name);
  }
  for (const e of edits.sort((a, b) => b.span[0] - a.span[0])) {
    plan.after = plan.after.slice(0, e.span[0]) + e.text + plan.after.slice(e.span[1]);
  }
  if (edits.length > 0) checkBump(plan, doc.value, edited, bump, ctx);
  return plan;
}

/** Fail closed rather than write a config that says something else than the new lock. */
function checkBump(
  plan: BumpPlan,
  value: unknown,
  edited: string[][],
  bump: VersionBump,
  ctx: PlanContext,
): void {
  const fail = (why: string) =>
    configInvalid(`${plan.file}: cannot bump the version without ${why}; nothing was written`);
  let next;
  try {
    next = readConfigDocument(new TextEncoder().encode(plan.after), plan.file);
  } catch {
    throw fail("breaking the file (the new text does not parse)");
  }
  const format = detectFormat(next);
  const entries =
    format === undefined ? [] : serverEntries(next, format, plan.file, ctx.projectDir).entries;
  const lock: Lock = { ...bump.before, servers: { ...bump.before.servers } };
  for (const [name, source] of Object.entries(bump.after)) {
    lock.servers[name] = { ...bump.before.servers[name]!, ...source } as Lock["servers"][string];
  }
  for (const name of plan.changed) {
    const entry = entries.find((e) => e.name === name);
    if (entry === undefined || !matchLock(name, entry.raw, plan.file, ctx, lock).ok) {
      throw fail(`entry ${name} differing from the new lock entry`);
    }
  }
  let rest: unknown = next.value;
  for (const path of edited) rest = withMember(rest, path, memberAt(value, path));
  if (!sameValue(rest, value)) throw fail("changing other content");
}
