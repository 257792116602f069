import { summarize } from "../../core/contract/compare.js";
import { visibleText } from "../../core/visible-text.js";
import { reportSubject, type DriftReport, type ReportItem } from "./report-model.js";
import { groupItems, groupMessage } from "./item-groups.js";
import { style } from "./style.js";
import { serverLines, summaryLine } from "./verify-text.js";

/** GitHub's limit on one step's job summary: 1 MiB. */
export const STEP_SUMMARY_LIMIT = 1024 * 1024;
/** GitHub's limit on a pull-request comment: 65,536 characters (so at most as many UTF-8 bytes is safe). */
export const COMMENT_LIMIT = 65536;

/** The longest run of backticks in `text`. */
function longestBacktickRun(text: string): number {
  let longest = 0;
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return longest;
}

/**
 * `text` as an inline code span: delimited by more backticks than any run in
 * it, padded with one space each side (which CommonMark strips), `|` escaped
 * for a table cell when `cell`. Nothing in it is read as Markdown or HTML.
 */
export function codeSpan(text: string, cell = false): string {
  const shown = text === "" ? "(empty)" : text;
  const ticks = "`".repeat(longestBacktickRun(shown) + 1);
  const body = cell ? shown.replaceAll("|", "\\|") : shown;
  return `${ticks} ${body} ${ticks}`;
}

/** `text` as a fenced code block whose fence is longer than any backtick run in it (at least 3). */
export function codeFence(text: string, info = "text"): string {
  const fence = "`".repeat(Math.max(3, longestBacktickRun(text) + 1));
  return `${fence}${info}\n${text}\n${fence}`;
}

const STATUS = { ok: "✅ ok", drift: "❌ drift", unreachable: "⚠️ unreachable" } as const;
/** A drift that `upgrade --write` took: reviewed in the pull request, not a failure. */
const ACCEPTED_DRIFT = "📝 accepted";

/**
 * The report as GitHub-flavoured Markdown, for a job summary or a
 * pull-request comment: the verdict, a table of servers, each finding (most
 * severe first; identical findings of several tools once, naming each tool),
 * then each server's detail as the text report shows it.
 * Every string from a server is inside a code span or a fenced block, shown
 * by visibleText. At most `maxBytes` bytes of UTF-8: what does not fit is
 * left out, with a note that says so.
 */
export function renderMarkdown(
  report: DriftReport,
  items: readonly ReportItem[],
  maxBytes: number,
): string {
  const plain = style(false);
  const parts: string[] = [];
  const ok = report.exitCode === 0;
  parts.push(
    `## contractpin: ${verdict(report, ok)}\n\n${summaryLine(report.findings, plain, reportSubject(report), report.configs)} (${report.old === undefined ? "lock" : `${codeSpan(visibleText(report.old))} against`} ${codeSpan(visibleText(report.lockFile))})\n\n` +
      "| Server | Status | Pinned tools | Drifted | Added | Removed |\n|---|---|---:|---:|---:|---:|\n",
  );
  for (const server of report.findings) {
    const { tools } = summarize([server]);
    const pinned = server.tools.filter((t) => t.status !== "added").length;
    const row =
      server.status === "unreachable"
        ? `| ${codeSpan(visibleText(server.name), true)} | ${STATUS.unreachable}: ${codeSpan(visibleText(server.error ?? ""), true)} | | | | |`
        : `| ${codeSpan(visibleText(server.name), true)} | ${server.status === "drift" && report.written === true ? ACCEPTED_DRIFT : STATUS[server.status]} | ${pinned} | ${tools.drifted} | ${tools.added} | ${tools.removed} |`;
    parts.push(row + "\n");
  }
  if (report.upgrades !== undefined && report.upgrades.length > 0) {
    parts.push(`\n### Version bumps\n\n| Server | Package | From | To |\n|---|---|---|---|\n`);
    for (const b of report.upgrades) {
      const cell = (text: string) => codeSpan(visibleText(text), true);
      parts.push(
        `| ${cell(b.server)} | ${cell(b.package)} | ${b.from === undefined ? "(not pinned)" : cell(b.from)} | ${cell(b.to)} |\n`,
      );
    }
  }
  if (items.length > 0) {
    parts.push(`\n### Findings\n\n`);
    // Identical findings of several tools are one bullet naming each tool.
    for (const group of groupItems(items)) {
      const { finding } = group.items[0]!;
      const where = [...new Set(group.items.map((i) => i.line))];
      const place =
        group.items[0]!.file === undefined
          ? `lock line${where.length === 1 ? "" : "s"} ${where.join(", ")}`
          : "client config";
      parts.push(
        `- **${finding.severity}** ${codeSpan(finding.rule)} (${place}): ${codeSpan(groupMessage(group))}\n`,
      );
    }
  }
  const detailed = report.findings.filter(
    (s) => s.status !== "ok" || s.tools.some((t) => t.status !== "unchanged"),
  );
  if (detailed.length > 0) parts.push(`\n### Details\n`);
  for (const server of detailed) {
    const lines = serverLines(server, report.explained?.get(server.name), report.verbose, plain);
    parts.push(`\n${codeFence(lines.join("\n"))}\n`);
  }
  if (report.accept !== undefined) parts.push(`\n${codeFence(report.accept)}\n`);
  return fit(parts, maxBytes);
}

/** The parts that fit in `maxBytes`, in order, and a note when some did not. */
function fit(parts: readonly string[], maxBytes: number): string {
  const total = parts.reduce((n, p) => n + Buffer.byteLength(p), 0);
  if (total <= maxBytes) return parts.join("");
  const note = (left: number) =>
    `\n\n> **Truncated:** ${left} of ${parts.length} parts of this report were left out to stay under ${maxBytes} bytes; the text, JSON and SARIF reports list every finding.\n`;
  // The note's length hardly depends on the count: reserve it with the largest.
  const reserve = Buffer.byteLength(note(parts.length));
  let used = 0;
  let kept = 0;
  for (const part of parts) {
    const size = Buffer.byteLength(part);
    if (used + size + reserve > maxBytes) break;
    used += size;
    kept++;
  }
  return parts.slice(0, kept).join("") + note(parts.length - kept);
}

function verdict(report: DriftReport, ok: boolean): string {
  if (report.old !== undefined) return ok ? "SAME" : "DIFFER";
  if (report.written === true) return "ACCEPTED";
  return ok ? "OK" : "FAIL";
}
