import type { ServerFinding } from "../core/compare.js";
import { atOrAbove } from "../core/findings/first-sight.js";
import type { Severity } from "../core/findings/rules.js";
import type { ServerExplained } from "./explain.js";

/**
 * True when `verify --fail-on THRESHOLD` lets a drift pass: every server
 * that did not match was read (an unreachable one never passes), and each of
 * its tools that moved is one of
 * - added, and `allowNew` (an added tool fails unless separately allowed);
 * - drifted, with its pinned contract from the snapshots (a drift that cannot
 *   be classified is not known to be below anything) and every finding below
 *   the threshold;
 * - removed (not renamed: the new name is an added tool), every finding below.
 * Without `explained` (nothing was classified) nothing passes.
 */
export function belowThreshold(
  findings: readonly ServerFinding[],
  explained: ReadonlyMap<string, ServerExplained> | undefined,
  threshold: Severity,
  allowNew: boolean,
): boolean {
  for (const server of findings) {
    if (server.status === "ok") continue;
    if (server.status !== "drift") return false;
    const detail = explained?.get(server.name);
    if (detail === undefined || detail.findings.some((f) => atOrAbove(f, threshold))) return false;
    for (const tool of server.tools) {
      if (tool.status === "unchanged") continue;
      if (tool.status === "added") {
        if (allowNew) continue;
        return false;
      }
      const why = detail.tools.get(tool.name);
      if (why === undefined || why.findings.length === 0) return false;
      if (tool.status === "drifted" && why.before === undefined) return false;
      if (why.findings.some((f) => atOrAbove(f, threshold))) return false;
    }
  }
  return true;
}
