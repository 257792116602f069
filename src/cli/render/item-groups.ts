import { canonicalize } from "../../core/json/canonical-json.js";
import { ruleOf } from "../../core/findings/rules.js";
import { visibleText } from "../../core/visible-text.js";
import { unknownFieldsText } from "./changed-fields.js";
import { configDetail } from "./config-text.js";
import { findingLine } from "./entry-text.js";
import type { ReportItem } from "./report-model.js";
import { displayName, sanitizeLine, style } from "./style.js";

/**
 * Findings that say the same thing about several tools of one server: the
 * same rule, severity, JSON Pointer, before and after, and all failing or
 * all allowed. Presentation only, for the Markdown list and the GitHub
 * annotations: JSON and SARIF keep one result per tool.
 */
export interface ItemGroup {
  /** The findings, in report order (most severe first); the first one's line is the group's. */
  items: ReportItem[];
}

/**
 * `items` (most severe first) grouped: identical findings of two or more
 * tools of one server become one group, at the place of the first; a finding
 * about a server (no tool) is a group of its own.
 */
export function groupItems(items: readonly ReportItem[]): ItemGroup[] {
  const groups: ItemGroup[] = [];
  const byKey = new Map<string, ItemGroup>();
  for (const item of items) {
    if (item.tool === undefined || item.file !== undefined) {
      groups.push({ items: [item] });
      continue;
    }
    const { rule, severity, pointer, before, after } = item.finding;
    const key = canonicalize({
      server: item.server,
      failing: item.failing,
      rule,
      severity,
      ...(pointer === undefined ? {} : { pointer }),
      ...(before === undefined ? {} : { before }),
      ...(after === undefined ? {} : { after }),
    });
    const group = byKey.get(key);
    if (group === undefined) {
      const fresh = { items: [item] };
      byKey.set(key, fresh);
      groups.push(fresh);
    } else group.items.push(item);
  }
  return groups;
}

/**
 * Where a group's findings are: `server docs, tool search` or
 * `server docs, 3 tools: a, b, c` (names shown safely); with `maxNames`, at
 * most that many names, then how many more.
 */
export function groupPlace(group: ItemGroup, maxNames = Infinity): string {
  const [first] = group.items;
  if (first!.file !== undefined) {
    const file = `config ${sanitizeLine(first!.file)}`;
    return first!.server === "" ? file : `${file}, server ${displayName(first!.server)}`;
  }
  const server = `server ${displayName(first!.server)}`;
  if (first!.tool === undefined) return server;
  if (group.items.length === 1) return `${server}, tool ${displayName(first!.tool)}`;
  const shown = group.items.slice(0, maxNames).map((i) => displayName(i.tool!));
  const more = group.items.length - shown.length;
  const names =
    shown.join(", ") + (more > 0 ? ` and ${more} more (the text report names each)` : "");
  return `${server}, ${group.items.length} tools: ${names}`;
}

/**
 * One line that says what a group's finding is, for an annotation or a
 * list: the place, the rule's title, and the detail line of the text
 * report (at most `maxNames` tool names). Server text is shown by
 * visibleText and displayName only.
 */
export function groupMessage(group: ItemGroup, maxNames = Infinity): string {
  const item = group.items[0]!;
  const { finding } = item;
  const rule = ruleOf(finding.rule);
  let detail: string;
  if (item.file !== undefined) {
    detail = configDetail({ file: item.file, finding });
  } else if (finding.rule === "server-unreachable" || finding.rule === "artifact-unchecked") {
    detail = typeof finding.after === "string" ? visibleText(finding.after) : "no reason given";
  } else if (finding.rule === "tool-drifted") {
    // Its fields are those the field digests claim: no snapshot confirms them.
    const claimed = Array.isArray(finding.after) ? finding.after.map((f) => String(f)) : [];
    detail = `changed: ${unknownFieldsText(claimed.map((f) => visibleText(f)))}`;
  } else {
    detail = findingLine(finding, style(false));
  }
  const allowed =
    item.accepted === true
      ? " (accepted by upgrade --write)"
      : item.failing
        ? ""
        : " (allowed by --allow-new)";
  return `${groupPlace(group, maxNames)}: ${rule.title}${allowed}. ${detail}`;
}

/**
 * One line that says what a finding is, for an annotation or a SARIF
 * message: the place, the rule's title, and the detail line of the text
 * report. Server text is shown by visibleText and displayName only.
 */
export function itemMessage(item: ReportItem): string {
  return groupMessage({ items: [item] });
}
