import type { ServerFinding } from "../../core/compare.js";
import type { ServerExplained } from "../../engine/explain.js";
import type { PinnedServer } from "../../core/lock.js";
import { describeSource } from "../../core/server-source.js";
import { driftedFields, driftedFieldsText } from "./changed-fields.js";
import { displayName } from "./style.js";

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
 * the new: a drifted tool's changed fields as `explained` confirms them (from
 * both contracts), else unknown.
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
    for (const tool of changed) {
      const detail = explained?.get(server.name)?.tools.get(tool.name);
      const fields =
        tool.status === "drifted"
          ? `  changed: ${driftedFieldsText(driftedFields(tool, detail))}`
          : "";
      lines.push(`  ${tool.status.padEnd(8)}  ${displayName(tool.name)}${fields}`);
    }
  }
  return lines.join("\n") + "\n";
}
