import { renderJsonChange, renderJsonValue } from "../../core/findings/diff-json.js";
import { diffWords, renderWordDiff } from "../../core/findings/diff-text.js";
import type { ToolStatus } from "../../core/contract/compare.js";
import type { Finding } from "../../core/findings/finding.js";
import { markValues, renderMarked } from "../../core/findings/launch-diff.js";
import type { JsonValue } from "../../core/json/json-value.js";
import { visibleText } from "../../core/visible-text.js";
import { lockWords, shellWord } from "./shell.js";
import { fits, states, type ChangeEntry, type ShownChange } from "./change-entries.js";
import { unknownFieldsText } from "./changed-fields.js";
import type { Style } from "./style.js";

/** What the text report calls each status of a tool or a surface part. */
export const STATUS_LABEL: Record<ToolStatus, string> = {
  unchanged: "unchanged",
  drifted: "DRIFTED",
  added: "ADDED",
  removed: "REMOVED",
};

/**
 * A tool's or surface part's status, padded to its column and painted: dim
 * when unchanged, yellow when added and allowed (the server passed), red
 * otherwise.
 */
export function statusLabel(status: ToolStatus, serverOk: boolean, s: Style): string {
  const label = STATUS_LABEL[status].padEnd(9);
  if (status === "unchanged") return s.dim(label);
  return status === "added" && serverOk ? s.yellow(label) : s.red(label);
}

/** Options of {@link findingLine}. */
export interface FindingLineOptions {
  /** Longest shown value before its middle is cut (default 60). */
  maxLength?: number;
  /** Show the finding's before and after (default true). */
  values?: boolean;
  /** The --lock option the command was given, repeated in a command a line suggests. */
  lock?: string | undefined;
}

/** `[high] input-property-added at inputSchema/properties/x: (absent) -> {"type":"string"}`. */
export function findingLine(finding: Finding, s: Style, options: FindingLineOptions = {}): string {
  const paint =
    finding.severity === "critical" || finding.severity === "high"
      ? s.red
      : finding.severity === "medium"
        ? s.yellow
        : s.dim;
  let line = `${paint(`[${finding.severity}]`)} ${finding.rule}`;
  if (finding.pointer !== undefined) line += ` at ${visibleText(finding.pointer.slice(1))}`;
  const { before, after } = finding;
  const shown = { maxLength: options.maxLength ?? 60 };
  if (finding.rule === "artifact-unchecked") {
    // Why the registry could not be asked: a registry's words, shown safely.
    if (typeof after === "string") line += `: ${visibleText(after)}`;
  } else if (finding.rule === "artifact-changed") {
    // Hashes are compared whole by a reader: never cut in the middle.
    line += `: ${renderJsonValue(before, { maxLength: Infinity })} -> ${renderJsonValue(after, { maxLength: Infinity })}`;
  } else if (finding.rule === "surface-drifted") {
    // As tool-drifted: which members changed is unknown; the lock's field
    // digests only claim some (advisory, and a hand-edited lock's are forged).
    const claimed = Array.isArray(after) ? after.filter((v) => typeof v === "string") : [];
    line += `: changed: ${unknownFieldsText(claimed)}`;
  } else if (
    finding.rule === "server-source-changed" ||
    finding.rule === "config-launch-changed" ||
    finding.rule === "package-name-confusable"
  ) {
    // A launch line is never cut: a look-alike character in the middle is the change.
    const marked = markValues(before, after);
    const paint = { removed: s.red, added: s.green };
    const [was, now] = [renderMarked(marked.before, paint), renderMarked(marked.after, paint)];
    line +=
      finding.rule === "package-name-confusable"
        ? `: ${now} looks like the pinned ${was}`
        : `: ${was} -> ${now}`;
  } else if (finding.rule === "package-runner-unpinned") {
    line += `: ${unpinnedText(finding, options.lock)}`;
  } else if (finding.rule === "tool-name-confusable" || finding.rule === "name-confusable") {
    // `before` is the other part's name, not an old value of this one.
    line += `: ${renderJsonValue(finding.after)} looks like ${renderJsonValue(finding.before)}`;
  } else if (
    (finding.rule.startsWith("description-") && finding.rule !== "description-changed") ||
    finding.rule === "instructions-directive"
  ) {
    // A first pin's text did not gain anything: it contains what was found.
    const verb = finding.contains === true ? "contains" : "gained";
    if (Array.isArray(after))
      line += `: ${verb} ${after.map((v) => renderJsonValue(v)).join(", ")}`;
  } else if (options.values !== false && (before !== undefined || after !== undefined)) {
    line += `: ${renderJsonValue(before, shown)} -> ${renderJsonValue(after, shown)}`;
  }
  return line;
}

/**
 * What a package-runner-unpinned finding says: what runs, the version that
 * would run now (or why the registry could not be asked), and the upgrade
 * command that pins it (with the lock the command was given, if any).
 * Registry text goes through visibleText.
 */
function unpinnedText(finding: Finding, lock: string | undefined): string {
  const after = (finding.after ?? {}) as Record<string, JsonValue>;
  const text = (key: string) => visibleText(String(after[key] ?? ""));
  const docker = after["ecosystem"] === "docker";
  const runs = docker
    ? `${text("package")} runs through ${text("runner")} with no tag or 'latest'`
    : `${text("package")} runs through ${text("runner")} without an exact version`;
  const upgrade = (to?: string) =>
    visibleText(
      `contractpin upgrade${lockWords(lock)} ${shellWord(finding.server ?? "")}${to === undefined ? "" : ` --to ${shellWord(to)}`} --write`,
    );
  if (typeof after["latest"] !== "string")
    return `${runs}: the version that would run now is unknown, the registry could not be asked (${text("unknown")}); pin it: ${upgrade()}`;
  const now = docker
    ? `the newest version tag is ${text("latest")}`
    : `each start runs the newest, now ${text("latest")}`;
  return `${runs}: ${now} (${text("registry")}); pin it: ${upgrade(after["latest"])}`;
}

/**
 * An entry's lines, each starting with `indent`: its findings (values whole,
 * or left to the change lines when too long), then the changes no finding
 * states, indented under the findings. Server text goes through visibleText.
 */
export function entryLines(
  entry: ChangeEntry,
  indent: string,
  s: Style,
  verbose: boolean,
): string[] {
  const lines: string[] = [];
  for (const finding of entry.findings) {
    const whole = verbose || (fits(finding.before) && fits(finding.after));
    // Values are never cut: too long for the line, they are left to the
    // change lines under the finding (split into members), else shown whole.
    const options: FindingLineOptions =
      whole || entry.changes.length === 0 ? { maxLength: Infinity } : { values: false };
    lines.push(`${indent}${findingLine(finding, s, options)}`);
  }
  const under = entry.findings.length > 0 ? `${indent}  ` : indent;
  for (const change of entry.changes) {
    if (entry.findings.some((f) => states(f, change, verbose))) continue;
    for (const line of changeLines(change, verbose, s)) lines.push(`${under}${line}`);
  }
  return lines;
}

/** The members whose text a report always shows as a word diff: an item's description, a server's instructions. */
const TEXT_POINTERS: ReadonlySet<string> = new Set(["/description", "/instructions"]);

/**
 * One change: `pointer: before -> after`, values whole (never cut in the
 * middle); two strings longer than VALUE_WIDTH (unless `verbose`),
 * and any two descriptions or instructions, as a word diff under `pointer:`.
 */
export function changeLines(change: ShownChange, verbose: boolean, s?: Style): string[] {
  const { before, after } = change;
  const where = visibleText(change.pointer.slice(1));
  const lines: string[] = [];
  if (
    typeof before === "string" &&
    typeof after === "string" &&
    (TEXT_POINTERS.has(change.pointer) || (!verbose && !(fits(before) && fits(after))))
  ) {
    lines.push(`${where}:`);
    const paint = s === undefined ? undefined : { removed: s.red, added: s.green };
    for (const l of renderWordDiff(diffWords(before, after), paint).split("\n"))
      lines.push(`  ${l}`);
  } else {
    // Whole: a value that could be split was (change-entries); what is left
    // (a long scalar, a list of scalars, a change of type) is the change itself.
    lines.push(renderJsonChange(change, { maxLength: Infinity }));
  }
  if (change.more !== undefined) {
    const of = visibleText((change.moreOf ?? change.pointer).slice(1));
    lines.push(`… ${change.more} more value(s) of ${of} left out: --verbose shows it whole`);
  }
  return lines;
}

/**
 * A value shown on its own (an added tool's field, split by splitValue):
 * `pointer: value`, whole, and how many members are left out, if any.
 */
export function valueLines(change: ShownChange): string[] {
  const where = visibleText(change.pointer.slice(1));
  const lines = [`${where}: ${renderJsonValue(change.after, { maxLength: Infinity })}`];
  if (change.more !== undefined) {
    const of = visibleText((change.moreOf ?? change.pointer).slice(1));
    lines.push(`… ${change.more} more value(s) of ${of} left out: --verbose shows it whole`);
  }
  return lines;
}
