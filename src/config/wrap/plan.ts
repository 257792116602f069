import path from "node:path";
import type { Lock } from "../../core/lock/lock.js";
import type { Span } from "../../core/json/json-spans.js";
import { configInvalid } from "../config-error.js";
import { detectFormat, EXPECTED_KEYS, serverEntries, type ServerEntry } from "../formats.js";
import { readRawServer } from "../raw-server.js";
import { readConfigDocument, readConfigText, type ConfigDocument } from "../read-document.js";
import { guardFields, ORIGINAL_VARIABLE } from "./guard-fields.js";
import { jsonEntry, renderJsonEntry } from "./json-entry.js";
import { matchLock } from "./match-lock.js";
import { sameValue, memberAt, withMember } from "./same-value.js";
import { entrySecrets } from "./secrets.js";
import { renderTomlEntry, tomlEntry } from "./toml-entry.js";

/** What became of one server entry of a config. */
export interface EntryOutcome {
  name: string;
  /** "changed": wrapped (or, for unwrap, restored); "unchanged" and "left" say why in `reason`. */
  action: "changed" | "unchanged" | "left";
  reason: string;
  /** An entry that should have changed and was left as it is (exit 1). */
  missed: boolean;
}

/** One replacement in the file's text. */
export interface Edit {
  span: Span;
  text: string;
}

/** The change to one config file; `after === before` when there is nothing to do. */
export interface FilePlan {
  file: string;
  before: string;
  after: string;
  edits: Edit[];
  outcomes: EntryOutcome[];
  /** Literal values of the file that may be secrets, to mask in a diff. */
  secrets: string[];
}

/** Where the configs are read, as for `init`. */
export interface PlanContext {
  projectDir: string;
  home?: string;
  /** A file without a server list is CONFIG_INVALID (true, for --from) or passed over. */
  required: boolean;
  /** The lock's directory, which `${workspaceFolder}` is relative to in the lock (MapContext). */
  lockDir?: string;
}

/** What wrapping needs: the lock, its absolute path, and how to launch contractpin. */
export interface WrapTarget {
  lock: Lock;
  lockPath: string;
  /** argv that runs contractpin: e.g. [node, /abs/contractpin.cjs] or [npx, --no, contractpin]. */
  launcher: string[];
  /** The lock as the entry names it (launch-form.ts), when not `lockPath`. */
  lockArg?: string;
}

type Mode = { wrap: WrapTarget } | { unwrap: Set<string> | undefined };

const keyOf = (entry: ServerEntry) => JSON.stringify(entry.path);

/** The entry's span and its wrapped text, or why it cannot be edited. */
function locate(
  text: string,
  doc: ConfigDocument,
  entry: ServerEntry,
): { span: Span; render: (f: Parameters<typeof renderJsonEntry>[1]) => string } | undefined {
  if (doc.syntax === "json") {
    const found = jsonEntry(text, entry.path);
    return found && { span: found.span, render: (f) => renderJsonEntry(found, f) };
  }
  if (doc.syntax === "yaml") return undefined;
  const found = tomlEntry(text, entry.name);
  return found && { span: found.span, render: (f) => renderTomlEntry(found, f) };
}

/**
 * Why an entry cannot be edited. YAML is refused whole: its comments, anchors
 * and flow and block styles leave no edit of an entry that is sure to keep
 * every other byte and to unwrap to the original, so wrap does not write it.
 */
function cannotEdit(doc: ConfigDocument, name: string): string {
  return doc.syntax === "yaml"
    ? "wrap does not rewrite YAML (Continue), whose comments and layout it could not keep " +
        `byte for byte; edit it by hand to run 'contractpin guard ${name} --lock LOCK'`
    : "wrap cannot edit this entry as it is written";
}

function planEntry(
  text: string,
  doc: ConfigDocument,
  entry: ServerEntry,
  file: string,
  mode: Mode,
  ctx: PlanContext,
): { outcome: EntryOutcome; edit?: Edit } {
  const { name, raw } = entry;
  const live = entry.skip === undefined || entry.skip === "disabled";
  const left = (reason: string, missed: boolean) => ({
    outcome: { name, action: "left" as const, reason, missed: missed && live },
  });
  const unchanged = (reason: string) => ({
    outcome: { name, action: "unchanged" as const, reason, missed: false },
  });
  const wrapped = Object.hasOwn(raw.env, ORIGINAL_VARIABLE);
  const place = locate(text, doc, entry);
  if ("unwrap" in mode) {
    if (!wrapped || (mode.unwrap !== undefined && !mode.unwrap.has(keyOf(entry)))) {
      return unchanged("not wrapped");
    }
    if (place === undefined) return left("wrap cannot edit this entry as it is written", true);
    const edit = { span: place.span, text: raw.env[ORIGINAL_VARIABLE]! };
    return { outcome: { name, action: "changed", reason: "restored", missed: false }, edit };
  }
  if (wrapped) return unchanged("already wrapped");
  // An entry the client does not use (Claude Code's user-scope one under a local one of the same name).
  if (!live) return left(entry.skip!, false);
  const lockDir = path.dirname(mode.wrap.lockPath);
  const match = matchLock(name, raw, file, { ...ctx, lockDir }, mode.wrap.lock);
  if (!match.ok) return left(match.reason, match.pinned);
  if (place === undefined) return left(cannotEdit(doc, name), true);
  const original = text.slice(place.span[0], place.span[1]);
  const format = doc.syntax === "toml" ? "codex" : "mcp-servers";
  const fields = guardFields(name, raw, match.imported, match.pinned, format, mode.wrap, original);
  return {
    outcome: { name, action: "changed", reason: "wrapped", missed: false },
    edit: { span: place.span, text: place.render(fields) },
  };
}

function applyEdits(text: string, edits: Edit[]): string {
  let out = text;
  for (const e of [...edits].sort((a, b) => b.span[0] - a.span[0])) {
    out = out.slice(0, e.span[0]) + e.text + out.slice(e.span[1]);
  }
  return out;
}

/**
 * Plans `wrap` or `unwrap` of one config file: which entries change and the
 * file's new text. Only the text of the entries that change is replaced;
 * every other byte of the file stays as it is. Pure.
 *
 * Before returning, the plan is checked: the new text must parse, hold every
 * other entry and key exactly as before, and (for wrap) unwrap back to the
 * original bytes; otherwise CONFIG_INVALID and nothing is to be written.
 *
 * @returns undefined for a discovered file that holds no server list.
 * @throws ContractpinError CONFIG_INVALID for a file that is not a valid config.
 */
export function planFile(
  bytes: Uint8Array,
  file: string,
  mode: Mode,
  ctx: PlanContext,
): FilePlan | undefined {
  const { doc, text } = readConfigText(bytes, file);
  const format = detectFormat(doc);
  if (format === undefined) {
    if (!ctx.required) return undefined;
    throw configInvalid(`${file}: not an MCP client config: expected ${EXPECTED_KEYS}`);
  }
  const { entries } = serverEntries(doc, format, file, ctx.projectDir);
  const plan: FilePlan = { file, before: text, after: text, edits: [], outcomes: [], secrets: [] };
  const changed = new Set<string>();
  for (const entry of entries) {
    const { outcome, edit } = planEntry(text, doc, entry, file, mode, ctx);
    plan.outcomes.push(outcome);
    plan.secrets.push(...entrySecrets(entry.raw));
    if (edit !== undefined) {
      plan.edits.push(edit);
      changed.add(keyOf(entry));
    }
  }
  if (plan.edits.length === 0) return plan;
  plan.after = applyEdits(text, plan.edits);
  checkPlan(
    plan,
    doc,
    entries.filter((e) => changed.has(keyOf(e))),
    mode,
    ctx,
    changed,
  );
  return plan;
}

/** The self-check of planFile: fail closed rather than write a file that says something else. */
function checkPlan(
  plan: FilePlan,
  doc: ConfigDocument,
  edited: ServerEntry[],
  mode: Mode,
  ctx: PlanContext,
  changed: Set<string>,
): void {
  const fail = (why: string) =>
    configInvalid(
      `${plan.file}: cannot rewrite it without changing more than its entries (${why}); nothing was written`,
    );
  let next: ConfigDocument;
  try {
    next = readConfigDocument(new TextEncoder().encode(plan.after), plan.file);
  } catch {
    throw fail("the new text does not parse");
  }
  let rest = next.value as unknown;
  for (const entry of edited) {
    const path = doc.syntax === "toml" ? ["mcp_servers", entry.name] : entry.path;
    const now = memberAt(next.value, path);
    if ("wrap" in mode) {
      const raw = readRawServer(now, plan.file);
      if (raw.command !== mode.wrap.launcher[0] || !Object.hasOwn(raw.env, ORIGINAL_VARIABLE)) {
        throw fail(`entry ${entry.name} does not launch the guard`);
      }
    }
    rest = withMember(rest, path, memberAt(doc.value, path));
  }
  if (!sameValue(rest, doc.value)) throw fail("other content would change");
  if ("wrap" in mode) {
    const back = planFile(
      new TextEncoder().encode(plan.after),
      plan.file,
      { unwrap: changed },
      ctx,
    );
    if (back?.after !== plan.before) throw fail("unwrap would not give back the original bytes");
  }
}
