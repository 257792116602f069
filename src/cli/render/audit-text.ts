import type { Finding } from "../../core/findings/finding.js";
import { atOrAbove } from "../../core/findings/rules.js";
import { SEVERITIES, type Severity } from "../../core/findings/rules.js";
import type { JsonValue } from "../../core/json/json-value.js";
import { escapeHiddenJson, prettyJson } from "../../core/json/pretty-json.js";
import { PARTS, partWords } from "../../core/contract/kinds.js";
import type { AuditRun, ServerAudit } from "../../engine/audit.js";
import { displayName, style, type Style } from "./style.js";
import { findingJson } from "./verify-json.js";
import { findingLine, type FindingLineOptions } from "./entry-text.js";
import { partFinding } from "./surface-text.js";

/** The identifier of `audit --json`'s schema (documented in the README). */
export const AUDIT_FORMAT = "contractpin-audit/1";

/** How many findings of each severity, most severe first. */
export function countBySeverity(findings: readonly Finding[]): Record<Severity, number> {
  const counts = Object.fromEntries(SEVERITIES.map((s) => [s, 0])) as Record<Severity, number>;
  for (const f of findings) counts[f.severity]++;
  return counts;
}

/** `2 high, 1 medium` (only the severities found), or `none`. */
function countsText(findings: readonly Finding[]): string {
  const counts = countBySeverity(findings);
  const parts = SEVERITIES.filter((s) => counts[s] > 0).map((s) => `${counts[s]} ${s}`);
  return parts.length === 0 ? "none" : parts.join(", ");
}

/**
 * The findings of one server, a block per item (`    [high] rule at pointer: ...`
 * under `  TOOL`, `  instructions`, `  prompt NAME`), in the order given,
 * each pointer relative to its item as verify's blocks show it (partFinding);
 * findings about the server itself come first.
 */
export function findingBlock(
  findings: readonly Finding[],
  s: Style,
  indent = "  ",
  options: FindingLineOptions = {},
): string[] {
  const lines: string[] = [];
  let item: string | undefined;
  for (const f of findings) {
    const part = partFinding(f);
    const key = f.tool !== undefined ? `tool\u0000${f.tool}` : part?.key;
    if (key !== undefined && key !== item) {
      item = key;
      lines.push(`${indent}${f.tool !== undefined ? displayName(f.tool) : part!.label}`);
    }
    lines.push(`${indent}  ${findingLine(part?.finding ?? f, s, options)}`);
  }
  return lines;
}

/**
 * What a pin command found in the contracts it pinned (first sight), after
 * its own line: nothing when there is nothing, else a header that says the
 * pin stands and the findings to review. `lock` is the --lock option the
 * command was given, repeated in the commands the findings suggest.
 */
export function renderPinnedFindings(
  name: string,
  findings: readonly Finding[],
  color: boolean,
  lock?: string,
): string {
  if (findings.length === 0) return "";
  const s = style(color);
  const head = `  review: the rules found ${countsText(findings)} in what ${displayName(name)} serves (pinned as served; see docs/findings.md)`;
  return [head, ...findingBlock(findings, s, "    ", { lock })].join("\n") + "\n";
}

/** The text report of `contractpin audit`: findings per server, then the verdict. */
export function renderAuditText(
  run: AuditRun,
  threshold: Severity,
  exitCode: number,
  color: boolean,
  lock?: string,
): string {
  const s = style(color);
  const lines: string[] = [];
  const all = run.servers.flatMap((server) => server.findings);
  for (const server of run.servers) {
    lines.push(
      `${displayName(server.name)}: ${pinnedText(server)}, findings: ${countsText(server.findings)}`,
    );
    lines.push(...findingBlock(server.findings, s, "  ", { lock }));
  }
  const failing = all.filter((f) => atOrAbove(f, threshold)).length;
  const scope = `${run.servers.length} server${run.servers.length === 1 ? "" : "s"}`;
  lines.push(
    exitCode === 0
      ? s.green(`OK: nothing at ${threshold} or above in ${scope} (${countsText(all)} found)`)
      : s.red(
          `FAIL: ${failing} finding${failing === 1 ? "" : "s"} at ${threshold} or above in ${scope}`,
        ),
  );
  return lines.join("\n") + "\n";
}

/** The --json report of `contractpin audit`; every character a terminal could act on is escaped. */
export function renderAuditJson(run: AuditRun, threshold: Severity, exitCode: number): string {
  const report = {
    format: AUDIT_FORMAT,
    lock: run.lockPath,
    snapshots: run.snapshotPath,
    exit_code: exitCode,
    fail_on: threshold,
    summary: countBySeverity(run.servers.flatMap((server) => server.findings)),
    servers: run.servers.map((server) => ({
      name: server.name,
      tools: server.tools,
      findings: server.findings.map(toolFindingJson),
    })),
  };
  return escapeHiddenJson(prettyJson(report)) + "\n";
}

/** A finding as the JSON outputs carry it (verify --json's members), with its tool. */
export function toolFindingJson(f: Finding): Record<string, JsonValue> {
  return { ...(f.tool === undefined ? {} : { tool: f.tool }), ...findingJson(f) };
}

/** What a server pins, in the table's words: `2 tools, instructions, 1 prompt`. */
function pinnedText(server: ServerAudit): string {
  const parts = [`${server.tools} tool${server.tools === 1 ? "" : "s"}`];
  for (const part of PARTS) {
    const n = part === "tools" ? undefined : server.surface?.[part];
    if (n === undefined || n === 0) continue;
    const words = partWords(part);
    parts.push(
      part === "instructions" ? words.noun : `${n} ${n === 1 ? words.noun : words.plural}`,
    );
  }
  return parts.join(", ");
}
