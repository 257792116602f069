// The config set's findings (SPEC.md 12) in words: one line each, naming the
// file and the entry. File names and server names are a repository's (or a
// user's) text: shown through sanitizeLine and displayName only.
import type { ConfigFinding } from "../../config/config-check.js";
import type { ConfigReport } from "../../config/config-set.js";
import { findingLine } from "./entry-text.js";
import { displayName, sanitizeLine, style, type Style } from "./style.js";
import { visibleText } from "../../core/visible-text.js";

/**
 * What a config finding says, without its rule: `.mcp.json: server evil is
 * not pinned in the lock`, `.mcp.json: server memory launches command: [..]
 * -> [..]` (values whole, never cut), ...
 */
export function configDetail(found: ConfigFinding): string {
  const { finding } = found;
  const file = sanitizeLine(found.file);
  const server = finding.server === undefined ? "" : `server ${displayName(finding.server)}`;
  const text = (v: unknown) => (typeof v === "string" ? visibleText(v) : "");
  switch (finding.rule) {
    case "config-server-unpinned":
      return `${file}: ${server} is not pinned in the lock (nor named in configs.unpinned)`;
    case "config-guard-bypassed":
      return `${file}: ${server} launches ${displayName(text(finding.after))} around the guard that another entry of this client runs it through`;
    case "config-unreadable":
      return `${file}: could not be checked: ${text(finding.after)}`;
    default: {
      if (finding.pointer === undefined) {
        return `${file}: ${server} is not what the lock pins: ${text(finding.after)}`;
      }
      // The rule's values, whole: `at command: [...] -> [...]`.
      const values = findingLine(finding, style(false), { maxLength: Infinity });
      const at = values.slice(values.indexOf(" at ") + 4);
      return `${file}: ${server} launches something else: ${at}`;
    }
  }
}

/** The text report's lines for the config set: a head line, then one line per finding. */
export function configLines(report: ConfigReport, s: Style): string[] {
  if (report.files.length === 0 && report.findings.length === 0) return [];
  const count = `${report.files.length} config file${report.files.length === 1 ? "" : "s"}`;
  if (report.findings.length === 0)
    return [`${s.bold("configs")}  ${s.green("ok")}  ${s.dim(`(${count})`)}`];
  const lines = [`${s.bold("configs")}  ${s.red("FAIL")}  ${s.dim(`(${count})`)}`];
  for (const found of report.findings) lines.push(`  ${configFindingLine(found, s)}`);
  return lines;
}

/** One config finding on one line: `[high] config-server-unpinned  .mcp.json: server evil is ...`. */
export function configFindingLine(found: ConfigFinding, s: Style): string {
  const { severity, rule } = found.finding;
  const paint = severity === "critical" || severity === "high" ? s.red : s.yellow;
  return `${paint(`[${severity}]`)} ${rule}  ${configDetail(found)}`;
}
