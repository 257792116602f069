import type { ServerFinding } from "../../core/compare.js";
import type { ServerExplained } from "../../engine/explain.js";
import type { PinnedServer } from "../../core/lock.js";
import { describeSource } from "../../core/server-source.js";
import { displayName, style } from "./style.js";
import { memberLines } from "./verify-text.js";

/** One line for a server just pinned. */
export function renderPinned(
  verb: string,
  name: string,
  server: PinnedServer,
  lockPath: string,
): string {
  const tools = `${server.tool_count} tool${server.tool_count === 1 ? "" : "s"}`;
  return `${verb} ${displayName(name)} (${server.transport} ${describeSource(server)}): ${tools}, ${server.digest} in ${lockPath}\n`;
}

/**
 * What re-pinning changed, per server, from a comparison of the old pins with
 * the new: for a server that changed, verify's report of its tools (the same
 * blocks, findings and groups, memberLines), so that what is accepted reads
 * as verify showed it; a drifted tool's changed fields as `explained`
 * confirms them (from both contracts), else unknown. No colour.
 */
export function renderChanges(
  findings: readonly ServerFinding[],
  explained?: ReadonlyMap<string, ServerExplained>,
): string {
  const lines: string[] = [];
  for (const server of findings) {
    const changed = server.tools.filter((t) => t.status !== "unchanged");
    if (changed.length === 0) {
      lines.push(`${displayName(server.name)}: unchanged (${server.tools.length} tools)`);
      continue;
    }
    lines.push(`${displayName(server.name)}: updated`);
    for (const line of memberLines(server, explained?.get(server.name), false, style(false)))
      lines.push(line);
  }
  return lines.join("\n") + "\n";
}
