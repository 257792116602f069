import {
  comparedItems,
  itemFails,
  partPointer,
  type ComparedItem,
  type ServerFinding,
  surfaceKey,
} from "./compare.js";
import type { Finding } from "../findings/finding.js";
import { atOrAbove, type Severity } from "../findings/rules.js";

/** What the explainer knows of one server: per tool, per surface part, and about the server. */
export interface ExplainedView {
  tools: ReadonlyMap<string, { before?: unknown; findings: readonly Finding[] }>;
  surface?: ReadonlyMap<string, { before?: unknown }>;
  findings: readonly Finding[];
}

/** The options that decide a verdict. */
export interface VerdictOptions {
  /** `--allow-new`: an added item does not fail (a drifted one always does). */
  allowNew: boolean;
  /**
   * `--fail-on SEVERITY`: a drifted or removed item whose findings are all
   * below it does not fail. Absent: every drifted or removed item fails.
   */
  failOn?: Severity;
}

/**
 * The exit code of a comparison (spec 6): 0 when nothing fails, else 1. One
 * function for verify, diff and upgrade, over every kind alike:
 * - an unreachable server fails, always, as does a server that drifted
 *   without any item moving (diff: how it is reached changed);
 * - an added item fails unless `allowNew` (never passed by `failOn`);
 * - a drifted or removed item fails, unless `failOn` is given and the item
 *   was explained (`explained`, from the snapshots): a drifted one with its
 *   pinned contract known (a drift no snapshot can classify is not known to
 *   be below anything), with at least one finding, every one of them and
 *   every finding about its server below the threshold.
 * Pure.
 */
export function verdict(
  findings: readonly ServerFinding[],
  explained: ReadonlyMap<string, ExplainedView> | undefined,
  options: VerdictOptions,
): 0 | 1 {
  for (const server of findings) {
    if (server.status === "unreachable") return 1;
    const detail = explained?.get(server.name);
    const items = comparedItems(server);
    // A drift of the server itself (diff: how it is reached changed), with no item moved.
    if (server.status === "drift" && items.every((i) => i.status === "unchanged")) return 1;
    for (const item of items) {
      if (!itemFails(item.status, options.allowNew)) continue;
      if (item.status === "added" || options.failOn === undefined || detail === undefined) return 1;
      if (!belowThreshold(item, detail, options.failOn)) return 1;
    }
  }
  return 0;
}

function belowThreshold(item: ComparedItem, detail: ExplainedView, threshold: Severity): boolean {
  if (detail.findings.some((f) => atOrAbove(f, threshold))) return false;
  let before: unknown;
  let findings: readonly Finding[];
  if (item.part === "tools") {
    const tool = detail.tools.get(item.key!);
    before = tool?.before;
    findings = tool?.findings ?? [];
  } else {
    const part = { part: item.part, ...(item.key === undefined ? {} : { key: item.key }) };
    before = detail.surface?.get(surfaceKey(part))?.before;
    const base = partPointer(part);
    findings = detail.findings.filter(
      (f) => f.pointer === base || (f.pointer ?? "").startsWith(`${base}/`),
    );
  }
  if (findings.length === 0) return false;
  if (item.status === "drifted" && before === undefined) return false;
  return !findings.some((f) => atOrAbove(f, threshold));
}
