import { summarize, type ServerFinding, type ToolFinding } from "../../core/compare.js";
import type { Contract } from "../../core/contract.js";
import type { JsonValue } from "../../core/json-value.js";
import { prettyJson } from "../../core/pretty-json.js";
import { diffJson, renderJsonChange, renderJsonValue } from "../../core/findings/diff-json.js";
import { diffWords, renderWordDiff } from "../../core/findings/diff-text.js";
import type { Finding } from "../../core/findings/finding.js";
import { visibleText } from "../../core/visible-text.js";
import type { ServerExplained, ToolExplained } from "../../engine/explain.js";
import { displayName, style, type Style } from "./style.js";
import { surfaceLines } from "./surface-text.js";

const TOOL_LABEL: Record<ToolFinding["status"], string> = {
  unchanged: "unchanged",
  drifted: "DRIFTED",
  added: "ADDED",
  removed: "REMOVED",
};

/** Options of {@link renderVerifyText}. */
export interface VerifyTextOptions {
  /** List every tool, unchanged ones included (default: only the tools that are not unchanged). */
  verbose?: boolean;
  /** What changed, per server (explainDrift); without it, drifted tools show their changed fields. */
  explained?: ReadonlyMap<string, ServerExplained>;
  /** The command that accepts the drift, printed last when the verdict failed on a drift. */
  accept?: string;
  /** What the summary line speaks of: live servers against the lock (default), or two sides of a diff. */
  subject?: "verify" | "diff";
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
  lines.push("", summaryLine(findings, s, options.subject ?? "verify"));
  if (options.accept !== undefined) lines.push(options.accept);
  return lines.join("\n") + "\n";
}

/**
 * One server's lines of the text report: its head line, then a block for each
 * tool that is not unchanged (every tool with `verbose`). No colour when `s`
 * is `style(false)`.
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
    return lines;
  }
  const count = server.tools.filter((t) => t.status !== "added").length;
  const head = server.status === "ok" ? s.green("ok") : s.red("DRIFT");
  const lines = [`${name}  ${head}  ${s.dim(`(${count} pinned tool${count === 1 ? "" : "s"})`)}`];
  // Findings about the server itself (how it is reached changed, from diff).
  for (const finding of explained?.findings ?? []) lines.push(`  ${findingLine(finding, s)}`);
  const shown = verbose ? server.tools : server.tools.filter((t) => t.status !== "unchanged");
  // The column of "changed:"; a name longer than ALIGN_MAX is not aligned with,
  // else one long name from a server would pad every drifted tool's line.
  let width = 0;
  for (const tool of shown) {
    const length = displayName(tool.name).length;
    if (length <= ALIGN_MAX) width = Math.max(width, length);
  }
  for (const tool of shown) {
    const label = TOOL_LABEL[tool.status].padEnd(9);
    const painted =
      tool.status === "unchanged"
        ? s.dim(label)
        : tool.status === "added" && server.status === "ok"
          ? s.yellow(label)
          : s.red(label);
    const detail = explained?.tools.get(tool.name);
    let line = `  ${painted}  ${displayName(tool.name)}`;
    if (detail?.renamedFrom !== undefined) {
      line += `  (likely renamed from ${displayName(detail.renamedFrom)})`;
    } else if (detail?.renamedTo !== undefined) {
      line += `  (likely renamed to ${displayName(detail.renamedTo)})`;
    }
    if (tool.status === "drifted") {
      // The headline; without a snapshot of the pinned contract, all there is.
      const fields =
        tool.fields && tool.fields.length > 0 ? tool.fields.join(", ") : "fields unknown";
      line = `${line.padEnd(line.length + width - displayName(tool.name).length)}  changed: ${fields}`;
    }
    if (tool.status === "added" && server.status === "ok")
      line += s.dim("  (allowed by --allow-new)");
    lines.push(line);
    if (detail !== undefined) for (const l of toolBlock(tool.status, detail, s)) lines.push(l);
  }
  for (const l of surfaceLines(server, explained?.surface, verbose, s)) lines.push(l);
  return lines;
}

const SCHEMA_FIELDS = ["inputSchema", "outputSchema", "annotations"] as const;

/** The block under a tool: what changed (or the whole tool, when added), then its findings. */
function toolBlock(status: ToolFinding["status"], tool: ToolExplained, s: Style): string[] {
  const lines: string[] = [];
  const { before, after } = tool;
  if (status === "added" && after !== undefined && tool.renamedFrom === undefined) {
    // An added tool, shown whole.
    lines.push("    description:");
    for (const l of descriptionText(after.description).split("\n")) lines.push(`      ${l}`);
    for (const field of SCHEMA_FIELDS) {
      const value = after[field];
      if (value === undefined || (field === "inputSchema" && value === null)) continue;
      lines.push(`    ${field}:`);
      for (const l of prettyJson(value).split("\n")) lines.push(`      ${visibleText(l)}`);
    }
  } else if (after !== undefined && before !== undefined) {
    if (!same(before.description, after.description)) {
      lines.push("    description:");
      const words =
        typeof before.description === "string" && typeof after.description === "string"
          ? renderWordDiff(diffWords(before.description, after.description))
          : `${renderJsonValue(before.description)} -> ${renderJsonValue(after.description)}`;
      for (const l of words.split("\n")) lines.push(`      ${l}`);
    }
    for (const field of SCHEMA_FIELDS) {
      for (const change of diffJson(fieldOf(before, field), fieldOf(after, field), `/${field}`)) {
        lines.push(`    ${renderJsonChange(change)}`);
      }
    }
  }
  for (const finding of tool.findings) lines.push(`    ${findingLine(finding, s)}`);
  return lines;
}

/** `[high] input-property-added at inputSchema/properties/x: (absent) -> {"type":"string"}`. */
export function findingLine(finding: Finding, s: Style): string {
  const paint =
    finding.severity === "critical" || finding.severity === "high"
      ? s.red
      : finding.severity === "medium"
        ? s.yellow
        : s.dim;
  let line = `${paint(`[${finding.severity}]`)} ${finding.rule}`;
  if (finding.pointer !== undefined) line += ` at ${visibleText(finding.pointer.slice(1))}`;
  const { before, after } = finding;
  if (finding.rule === "surface-drifted") {
    // As tool-drifted: only the names of the changed members are known.
    if (Array.isArray(after) && after.length > 0) line += `: changed: ${after.join(", ")}`;
  } else if (finding.rule === "tool-name-confusable") {
    // `before` is the other tool's name, not an old value of this one.
    line += `: ${renderJsonValue(finding.after)} looks like ${renderJsonValue(finding.before)}`;
  } else if (
    (finding.rule.startsWith("description-") && finding.rule !== "description-changed") ||
    finding.rule === "instructions-directive"
  ) {
    if (Array.isArray(after)) line += `: gained ${after.map((v) => renderJsonValue(v)).join(", ")}`;
  } else if (before !== undefined || after !== undefined) {
    line += `: ${renderJsonValue(before, { maxLength: 60 })} -> ${renderJsonValue(after, { maxLength: 60 })}`;
  }
  return line;
}

function descriptionText(description: JsonValue): string {
  if (typeof description === "string") return visibleText(description, { multiline: true });
  return description === null ? "(none)" : renderJsonValue(description);
}

function fieldOf(c: Contract, field: (typeof SCHEMA_FIELDS)[number]): JsonValue | undefined {
  return c[field] ?? undefined;
}

function same(a: JsonValue, b: JsonValue): boolean {
  return diffJson(a, b).length === 0;
}

/** The verdict in one line: `OK: 2 servers match the lock` or `FAIL: 1 drifted of 2 servers (...)` (for diff, SAME or DIFFER). */
export function summaryLine(
  findings: readonly ServerFinding[],
  s: Style,
  subject: "verify" | "diff" = "verify",
): string {
  const { servers, tools } = summarize(findings);
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
  const toolParts = (["drifted", "added", "removed"] as const)
    .filter((k) => tools[k] > 0)
    .map((k) => `${tools[k]} ${k}`);
  if (servers.ok === total) {
    const extra = tools.added > 0 ? `, ${tools.added} new tool(s) allowed` : "";
    return s.green(
      `OK: ${total === 1 ? "1 server matches" : `${total} servers match`} the lock${extra}`,
    );
  }
  const parts = [
    servers.drift > 0 ? `${servers.drift} drifted` : "",
    servers.unreachable > 0 ? `${servers.unreachable} unreachable` : "",
    servers.ok > 0 ? `${servers.ok} ok` : "",
  ].filter((p) => p !== "");
  const detail = toolParts.length > 0 ? ` (tools: ${toolParts.join(", ")})` : "";
  const verdict = subject === "diff" ? "DIFFER" : "FAIL";
  return s.red(
    `${verdict}: ${parts.join(", ")} of ${total} server${total === 1 ? "" : "s"}${detail}`,
  );
}
