import {
  countItems,
  summarize,
  type ServerFinding,
  type ToolFinding,
} from "../../core/contract/compare.js";
import type { JsonValue } from "../../core/json/json-value.js";
import { PARTS, partWords } from "../../core/contract/kinds.js";
import { visibleText } from "../../core/visible-text.js";
import type { ServerExplained, ToolExplained } from "../../engine/explain-server.js";
import { changeEntries, REPORTED_FIELDS } from "./change-entries.js";
import { driftedFields, driftedFieldsText } from "./changed-fields.js";
import { entryLines, findingLine, STATUS_LABEL } from "./entry-text.js";
import { shareEntries } from "./shared-entries.js";
import { displayName, style, type Style } from "./style.js";
import { surfaceBlocks, surfaceFindingsByPart } from "./surface-text.js";
import { blockLines, type ItemBlock } from "./item-block.js";
import { addedBlock } from "./item-text.js";
import type { ConfigReport } from "../../config/config-set.js";
import { configLines } from "./config-text.js";

export { findingLine } from "./entry-text.js";

/** Options of {@link renderVerifyText}. */
export interface VerifyTextOptions {
  /** List every tool, unchanged ones included (default: only the tools that are not unchanged). */
  verbose?: boolean;
  /** What changed, per server (explainDrift); without it, drifted tools' changed fields are unknown. */
  explained?: ReadonlyMap<string, ServerExplained>;
  /** The command that accepts the drift, printed last when the verdict failed on a drift. */
  accept?: string;
  /** What the summary line speaks of (default "verify"): see {@link Subject}. */
  subject?: Subject;
  /** The client configs checked against the lock (verify; SPEC.md 12). */
  configs?: ConfigReport;
}

/** The longest displayed tool name the "changed:" column is aligned to. */
const ALIGN_MAX = 48;

/**
 * Verify findings for a terminal or a CI log: one line per server, then a
 * block for each tool that is not unchanged (every tool with `verbose`), a
 * summary line, and the command that accepts a drift. Every string from a
 * server goes through visibleText or displayName.
 */
export function renderVerifyText(
  findings: readonly ServerFinding[],
  color: boolean,
  options: VerifyTextOptions = {},
): string {
  const s = style(color);
  const lines: string[] = [];
  // One push per line: spreading a server's lines into one call would pass
  // every tool as an argument, which overflows the stack at ~100,000 tools.
  for (const server of findings) {
    const explained = options.explained?.get(server.name);
    for (const line of serverLines(server, explained, options.verbose === true, s))
      lines.push(line);
  }
  if (options.configs !== undefined)
    for (const line of configLines(options.configs, s)) lines.push(line);
  lines.push("", summaryLine(findings, s, options.subject ?? "verify", options.configs));
  if (options.accept !== undefined) lines.push(options.accept);
  return lines.join("\n") + "\n";
}

/**
 * One server's lines of the text report: its head line, then what changed
 * ({@link memberLines}). No colour when `s` is `style(false)`.
 */
export function serverLines(
  server: ServerFinding,
  explained: ServerExplained | undefined,
  verbose: boolean,
  s: Style,
): string[] {
  const name = s.bold(displayName(server.name));
  if (server.status === "unreachable") {
    const lines = [`${name}  ${s.red("UNREACHABLE")}  ${visibleText(server.error ?? "")}`];
    for (const line of server.detail ?? []) lines.push(s.dim(`  | ${visibleText(line)}`));
    // Why it was not started, when its findings say more than the line (an artifact that changed).
    for (const finding of explained?.findings ?? [])
      if (finding.rule === "artifact-changed") lines.push(`  ${findingLine(finding, s)}`);
    return lines;
  }
  const count = server.tools.filter((t) => t.status !== "added").length;
  const head = server.status === "ok" ? s.green("ok") : s.red("DRIFT");
  const lines = [`${name}  ${head}  ${s.dim(`(${count} pinned tool${count === 1 ? "" : "s"})`)}`];
  for (const line of memberLines(server, explained, verbose, s)) lines.push(line);
  return lines;
}

/**
 * What changed in a server, under its head line: first the findings about
 * the server itself (how it is reached changed, from diff; a surface part's
 * are in its block, as a tool's are); then each change that several tools
 * share identically (shareEntries), once, with every tool's name; then a
 * block for each item that is not unchanged (every item with `verbose`),
 * tools first, then the surface (surfaceBlocks), with what is its own. A
 * tool whose every change is shared has no block of its own. Values are
 * shown whole with `verbose`. Every block is written by blockLines.
 */
export function memberLines(
  server: ServerFinding,
  explained: ServerExplained | undefined,
  verbose: boolean,
  s: Style,
): string[] {
  const lines: string[] = [];
  const { own: serverOwn, byPart } = surfaceFindingsByPart(server, explained);
  for (const finding of serverOwn) lines.push(`  ${findingLine(finding, s)}`);
  const shown = verbose ? server.tools : server.tools.filter((t) => t.status !== "unchanged");
  const members = shown.map((tool) => {
    const detail = explained?.tools.get(tool.name);
    const whole = addedWhole(tool.status, detail);
    const entries =
      detail === undefined
        ? []
        : changeEntries(whole ? undefined : detail.before, detail.after, detail.findings, {
            verbose,
          });
    const renamed = detail?.renamedFrom !== undefined || detail?.renamedTo !== undefined;
    const groupable = (tool.status === "drifted" || tool.status === "removed") && !renamed;
    return { name: tool.name, status: tool.status, entries, groupable };
  });
  const { shared, own, sharedCount } = shareEntries(members);
  for (const group of shared) {
    const label = s.red(STATUS_LABEL[group.status as ToolFinding["status"]].padEnd(9));
    const names = group.names.map((n) => displayName(n)).join(", ");
    lines.push(`  ${label}  ${group.names.length} tools: ${names}`);
    for (const l of entryLines(group.entry, "    ", s, verbose)) lines.push(l);
  }
  // A tool whose every change is shared needs no block of its own.
  const blocks = shown.filter((_, i) => {
    const m = members[i]!;
    return !m.groupable || own.get(m.name)!.length > 0 || sharedCount.get(m.name) === 0;
  });
  // The column of "changed:"; a name longer than ALIGN_MAX is not aligned with,
  // else one long name from a server would pad every drifted tool's line.
  let width = 0;
  for (const tool of blocks) {
    const length = displayName(tool.name).length;
    if (length <= ALIGN_MAX) width = Math.max(width, length);
  }
  const serverOk = server.status === "ok";
  for (const tool of blocks) {
    const detail = explained?.tools.get(tool.name);
    const label = displayName(tool.name);
    const block: ItemBlock = {
      status: tool.status,
      label,
      entries: own.get(tool.name)!,
      shared: sharedCount.get(tool.name)!,
    };
    if (detail?.renamedFrom !== undefined)
      block.note = `(likely renamed from ${displayName(detail.renamedFrom)})`;
    else if (detail?.renamedTo !== undefined)
      block.note = `(likely renamed to ${displayName(detail.renamedTo)})`;
    if (tool.status === "drifted") {
      // The headline: the fields that differ between the two contracts; without
      // both, unknown (the field digests alone are advisory, spec 4.2).
      block.changed = driftedFieldsText(driftedFields(tool, detail));
      block.pad = width - label.length;
    }
    if (detail !== undefined && addedWhole(tool.status, detail)) {
      const after = detail.after! as unknown as Readonly<Record<string, JsonValue>>;
      block.whole = addedBlock(after, REPORTED_FIELDS, verbose);
    }
    for (const l of blockLines(block, serverOk, verbose, s)) lines.push(l);
  }
  for (const block of surfaceBlocks(server, explained, verbose, byPart))
    for (const l of blockLines(block, serverOk, verbose, s)) lines.push(l);
  return lines;
}

/** An added tool is shown whole, unless it is a likely rename (then its changes are shown). */
function addedWhole(status: ToolFinding["status"], detail: ToolExplained | undefined): boolean {
  return status === "added" && detail?.after !== undefined && detail.renamedFrom === undefined;
}

/**
 * What a report speaks of: live servers against the lock (verify, and
 * upgrade without --write), two sides of a diff, or candidates that
 * `upgrade --write` took into the lock.
 */
export type Subject = "verify" | "diff" | "written";

/**
 * The verdict in one line: `OK: 2 servers match the lock` or `FAIL: 1
 * drifted of 2 servers (...)`; for diff, SAME or DIFFER; for candidates
 * `upgrade --write` took, ACCEPTED, whatever they changed.
 */
export function summaryLine(
  findings: readonly ServerFinding[],
  s: Style,
  subject: Subject = "verify",
  configs?: ConfigReport,
): string {
  const found = configs?.findings.length ?? 0;
  if (found === 0) return serversLine(findings, s, subject);
  // The servers may all match: the configs still fail the run.
  const servers = serversLine(findings, style(false), subject).replace(/^(?:OK|FAIL): /, "");
  return s.red(`FAIL: ${found} config finding${found === 1 ? "" : "s"}; ${servers}`);
}

function serversLine(findings: readonly ServerFinding[], s: Style, subject: Subject): string {
  const { servers } = summarize(findings);
  const counts = countItems(findings);
  const total = findings.length;
  if (subject === "diff") {
    if (total === 0) return s.green("SAME: neither side pins a server");
    if (servers.ok === total) {
      return s.green(
        `SAME: ${total === 1 ? "1 server pins" : `${total} servers pin`} the same contracts`,
      );
    }
  }
  if (total === 0) return s.yellow("no servers to verify: the lock pins none");
  // Every kind that moved, in the lock's order: `tools: 1 drifted; prompts: 1 added`.
  const partCounts = PARTS.flatMap((part) => {
    const moved = (["drifted", "added", "removed"] as const)
      .filter((k) => counts[part][k] > 0)
      .map((k) => `${counts[part][k]} ${k}`);
    return moved.length > 0 ? [`${partWords(part).plural}: ${moved.join(", ")}`] : [];
  });
  const parts = [
    servers.drift > 0 ? `${servers.drift} drifted` : "",
    servers.unreachable > 0 ? `${servers.unreachable} unreachable` : "",
    servers.ok > 0 ? `${servers.ok} ok` : "",
  ].filter((p) => p !== "");
  const detail = partCounts.length > 0 ? ` (${partCounts.join("; ")})` : "";
  const of = `${parts.join(", ")} of ${total} server${total === 1 ? "" : "s"}${detail}`;
  if (subject === "written") return s.green(`ACCEPTED: ${of}; written to the lock`);
  if (servers.ok === total) {
    const added = PARTS.filter((p) => counts[p].added > 0).map((p) =>
      p === "instructions" ? "new instructions" : `${counts[p].added} new ${partWords(p).noun}(s)`,
    );
    const extra = added.length > 0 ? `, ${added.join(", ")} allowed` : "";
    return s.green(
      `OK: ${total === 1 ? "1 server matches" : `${total} servers match`} the lock${extra}`,
    );
  }
  const verdict = subject === "diff" ? "DIFFER" : "FAIL";
  return s.red(`${verdict}: ${of}`);
}
