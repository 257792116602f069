import type { ConfigReport } from "../../config/config-set.js";
import { aboutAddedPart, type ServerFinding } from "../../core/contract/compare.js";
import type { Digest } from "../../core/contract/digest.js";
import {
  sidePinFindings,
  unexplainedDriftFinding,
  unreachableFinding,
} from "../../core/findings/status-findings.js";
import { bySeverity, toFinding, type Finding } from "../../core/findings/finding.js";
import { TOOLS } from "../../core/contract/kinds.js";
import type { LockLines } from "../../core/lock/lock-lines.js";
import { escapeHiddenJson } from "../../core/json/pretty-json.js";
import type { ServerExplained } from "../../engine/explain-server.js";
import { driftedFields } from "./changed-fields.js";
import type { Subject } from "./verify-text.js";

/**
 * Everything a report of `verify` or `diff` is made from: plain data, built
 * once the verdict is decided. Every renderer (text, JSON, SARIF, GitHub
 * annotations, Markdown) reads this one value.
 */
export interface DriftReport {
  /** The lock the findings are about, as the user named it (JSON's `lock`; SARIF and annotations point into it). */
  lockFile: string;
  /** The lock's text, for the line numbers of SARIF results and annotations (default: read from `lockFile` when needed). */
  lockText?: string;
  /** Each server's verdict, in report order. */
  findings: readonly ServerFinding[];
  /** What changed, per server (explainDrift); absent when nothing moved. */
  explained?: ReadonlyMap<string, ServerExplained>;
  /** The run's exit code (a report never changes it). */
  exitCode: number;
  /** Added tools were allowed (--allow-new): their findings do not fail. */
  allowNew: boolean;
  /** The text report lists every tool (--verbose). */
  verbose: boolean;
  /** The command that accepts the drift, shown last by the text and Markdown reports. */
  accept?: string;
  /** For `upgrade`: each server's package and the versions it goes from and to (shown first by Markdown; the JSON report does not carry them). */
  upgrades?: readonly VersionBump[];
  /**
   * For `upgrade --write`: the candidates were taken into the lock. Every
   * format says ACCEPTED, and no finding fails the run (each is marked
   * accepted).
   */
  written?: boolean;
  /** For `verify`: the client configs checked against the lock and what was found (SPEC.md 12). */
  configs?: ConfigReport;
  /** For `diff`: the two sides (`lockFile` is whichever is a lock, NEW first); the verdict reads SAME or DIFFER. */
  old?: string;
  new?: string;
}

/** One server's version bump in an `upgrade` report: all of it is server or registry text. */
export interface VersionBump {
  server: string;
  package: string;
  /** The pinned version; absent when the lock runs the package unpinned. */
  from?: string;
  to: string;
}

/** One finding as the CI formats show it: where it is, and whether it fails the run. */
export interface ReportItem {
  /** The classified finding (`server` and `tool` set). */
  finding: Finding;
  /** The server's name ("" for a config that could not be read). */
  server: string;
  tool?: string;
  /** For a config finding: the config file (as the report names it); `line` is then its line 1. */
  file?: string;
  /** False for the findings of a tool that --allow-new allowed, and for those `upgrade --write` accepted. */
  failing: boolean;
  /** True for the findings of a change that `upgrade --write` took into the lock. */
  accepted?: true;
  /** The tool's digest in the lock (the server's, for an unreachable server). */
  pinned?: Digest;
  /** The tool's live digest. */
  live?: Digest;
  /** The 1-based line in the lock: the tool's entry, else the server's. */
  line: number;
}

/** The rules of the side pins' findings, which never explain a contract change. */
const SIDE_PIN_RULES: ReadonlySet<string> = new Set(TOOLS.sidePins.map((p) => p.rule));

/**
 * Every finding of a report, most severe first (servers and tools in report
 * order within a severity). Never silently missing: an unreachable server
 * without an explanation gets `server-unreachable`, and a tool that is not
 * unchanged but has no classified finding (no snapshot) gets `tool-drifted`
 * (its `after`: the fields the field digests claim, which nothing confirms),
 * `tool-added` or `tool-removed`.
 */
export function reportItems(report: DriftReport, lines: LockLines): ReportItem[] {
  const items: ReportItem[] = [];
  for (const server of report.findings) {
    const explained = report.explained?.get(server.name);
    const serverLine = lines.server(server.name);
    if (server.status === "unreachable") {
      const found = explained?.findings ?? [];
      for (const finding of found.length > 0
        ? found
        : [unreachableFinding(server.name, server.error)]) {
        items.push({
          finding,
          server: server.name,
          failing: true,
          pinned: server.pinnedDigest,
          line: serverLine,
        });
      }
      continue;
    }
    for (const finding of explained?.findings ?? []) {
      // The findings of an added prompt or template, as an added tool's, do not fail under --allow-new.
      const failing = !(report.allowNew && aboutAddedPart(server.surface, finding.pointer));
      items.push({ finding, server: server.name, failing, line: serverLine });
    }
    for (const tool of server.tools) {
      if (tool.status === "unchanged") continue;
      const detail = explained?.tools.get(tool.name);
      // Without an explanation, a side pin that moved is still known from the digests.
      let found: Finding[] =
        detail?.findings ?? sidePinFindings(server.name, tool.name, tool.sidePins ?? []);
      // A removed tool that was renamed is reported once, on its new name.
      if (found.length === 0 && detail?.renamedTo !== undefined) continue;
      // A side pin's finding (SPEC.md 13) says nothing of the contract: when
      // the contract moved too and nothing classified it, it is unexplained.
      const contractMoved = tool.status !== "drifted" || tool.pinned !== tool.live;
      if (contractMoved && found.every((f) => SIDE_PIN_RULES.has(f.rule))) {
        found = [
          ...found,
          tool.status === "drifted"
            ? unexplainedDriftFinding(
                server.name,
                tool.name,
                driftedFields(tool, detail).unconfirmed,
              )
            : toFinding(
                { rule: tool.status === "added" ? "tool-added" : "tool-removed" },
                tool.name,
                server.name,
              ),
        ];
      }
      const failing = !(tool.status === "added" && report.allowNew);
      const line = tool.status === "added" ? serverLine : lines.tool(server.name, tool.name);
      for (const finding of found) {
        const item: ReportItem = { finding, server: server.name, tool: tool.name, failing, line };
        if (tool.pinned !== undefined) item.pinned = tool.pinned;
        if (tool.live !== undefined) item.live = tool.live;
        items.push(item);
      }
    }
  }
  // The config set's findings always fail the run (SPEC.md 12).
  for (const { file, finding } of report.configs?.findings ?? []) {
    items.push({ finding, server: finding.server ?? "", file, failing: true, line: 1 });
  }
  // What upgrade --write took is accepted: it no longer fails the run.
  if (report.written === true) {
    for (const item of items) Object.assign(item, { failing: false, accepted: true });
  }
  // Array.prototype.sort is stable: report order within a severity.
  return items.sort((a, b) => bySeverity(a.finding, b.finding));
}

/** What the report's summary line speaks of. */
export function reportSubject(report: DriftReport): Subject {
  if (report.old !== undefined) return "diff";
  return report.written === true ? "written" : "verify";
}

/**
 * JSON text that no CI log reader acts on: every hidden character (layout
 * line feeds aside) as a `\u` escape (escapeHiddenJson), and `##[` written
 * `#\u0023[`, so a server's string cannot form a GitHub Actions `##[command]`
 * anywhere in a line. A pretty-printed JSON line never starts with `::` (the
 * other form of workflow command): it starts with a bracket, a brace or a
 * quote. Parsing gives back exactly the same value.
 */
export function inertJson(json: string): string {
  return escapeHiddenJson(json).replaceAll("##[", "#\\u0023[");
}
