import { groupItems, groupMessage } from "./item-groups.js";
import type { ReportItem } from "./report-model.js";

/** GitHub shows at most 10 error and 10 warning annotations per step: more are dropped. */
export const ANNOTATION_CAP = 10;

/**
 * A workflow command's message (the part after `::`), escaped as the runner
 * unescapes it: `%`, CR and LF, so that no text can end the command's line
 * and start another.
 */
export function escapeData(text: string): string {
  return text.replaceAll("%", "%25").replaceAll("\r", "%0D").replaceAll("\n", "%0A");
}

/** A workflow command's property value: as {@link escapeData}, and `:` and `,` too. */
export function escapeProperty(text: string): string {
  return escapeData(text).replaceAll(":", "%3A").replaceAll(",", "%2C");
}

/** The most tool names one annotation's message lists (GitHub cuts long messages); the text report names each. */
export const ANNOTATION_NAMES = 50;

/** Options of {@link renderAnnotations}. */
export interface AnnotationOptions {
  /** The lock's path relative to the repository root, for `file=`. */
  file: string;
  /** A config file's path relative to the repository root, for a config finding's `file=` (default: as named). */
  configPath?: (file: string) => string;
}

/**
 * GitHub workflow commands for a report's findings (`items`, most severe
 * first): `::error` for a finding that fails the run and is not low,
 * `::warning` for the others, at most {@link ANNOTATION_CAP} of each, and one
 * `::notice` with the totals. Identical findings of several tools of a server
 * (groupItems) are one annotation that names each tool, at the line of the
 * first tool's entry; any other annotation points at the line of its tool's
 * entry in the lock. Every value is escaped: a server's text cannot end a
 * command or start one.
 */
export function renderAnnotations(
  items: readonly ReportItem[],
  options: AnnotationOptions,
): string {
  if (items.length === 0) return "";
  const lines: string[] = [];
  const shown = { error: 0, warning: 0 };
  const total = { error: 0, warning: 0 };
  const annotations = { error: 0, warning: 0 };
  for (const group of groupItems(items)) {
    const item = group.items[0]!;
    const kind = item.failing && item.finding.severity !== "low" ? "error" : "warning";
    total[kind] += group.items.length;
    annotations[kind]++;
    if (shown[kind] >= ANNOTATION_CAP) continue;
    shown[kind]++;
    const tools = group.items.length === 1 ? "" : ` (${group.items.length} tools)`;
    const title = `contractpin ${item.finding.severity}: ${item.finding.rule}${tools}`;
    const props = [
      `file=${escapeProperty(item.file === undefined ? options.file : (options.configPath?.(item.file) ?? item.file))}`,
      `line=${item.line}`,
      `title=${escapeProperty(title)}`,
    ];
    lines.push(
      `::${kind} ${props.join(",")}::${escapeData(groupMessage(group, ANNOTATION_NAMES))}`,
    );
  }
  const count = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`;
  let notice = `contractpin: ${count(items.length, "finding")} (${count(total.error, "error")}, ${count(total.warning, "warning")})`;
  if (annotations.error > shown.error || annotations.warning > shown.warning) {
    notice += `; annotated: the first ${ANNOTATION_CAP} of each, most severe first; the text report and the json and sarif formats list every finding`;
  }
  lines.push(`::notice title=${escapeProperty("contractpin")}::${escapeData(notice)}`);
  return lines.join("\n") + "\n";
}
