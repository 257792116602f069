import type { ServerFinding } from "../../core/compare.js";
import type { ServerExplained } from "../../engine/explain.js";
import type { PinnedServer } from "../../core/lock.js";
import { describeSource } from "../../core/server-source.js";
import { SURFACE_KINDS } from "../../core/kinds.js";
import { displayName, style } from "./style.js";
import { findingLine } from "./entry-text.js";
import { memberLines } from "./verify-text.js";

/** One line for a server just pinned. */
export function renderPinned(
  verb: string,
  name: string,
  server: PinnedServer,
  lockPath: string,
): string {
  const tools = `${server.tool_count} tool${server.tool_count === 1 ? "" : "s"}`;
  return `${verb} ${displayName(name)} (${server.transport} ${describeSource(server)}): ${tools}${surfaceCounts(server)}, ${server.digest} in ${lockPath}\n`;
}

/** `, instructions, 4 prompts, 2 resource templates` for a server that pins its surface (SPEC.md 10). */
function surfaceCounts(server: PinnedServer): string {
  const surface = server.surface;
  if (surface === undefined) return "";
  let out = surface.instructions === null ? ", no instructions" : ", instructions";
  for (const kind of SURFACE_KINDS) {
    const list = surface[kind.id];
    if (list === undefined || list === null) continue;
    out += `, ${list.count} ${kind.noun}${list.count === 1 ? "" : "s"}`;
  }
  return out;
}

/**
 * What re-pinning changed, per server, from a comparison of the old pins with
 * the new: for a server that changed, verify's report of its tools and
 * surface (the same blocks, findings and groups, memberLines), so that what
 * is accepted reads as verify showed it; a drifted tool's changed fields as
 * `explained` confirms them (from both contracts), else unknown; and a line
 * for a pin whose scope changed (`scopes`). No colour.
 */
export function renderChanges(
  findings: readonly ServerFinding[],
  explained?: ReadonlyMap<string, ServerExplained>,
  scopes?: ReadonlyMap<string, string>,
): string {
  const lines: string[] = [];
  for (const server of findings) {
    const changed = server.tools.filter((t) => t.status !== "unchanged");
    const parts = (server.surface ?? []).filter((p) => p.status !== "unchanged");
    const scope = scopes?.get(server.name);
    if (changed.length === 0 && parts.length === 0 && scope === undefined) {
      lines.push(`${displayName(server.name)}: unchanged (${server.tools.length} tools)`);
      continue;
    }
    lines.push(`${displayName(server.name)}: updated`);
    // What verify said about the server (its surface's findings), as verify says it.
    for (const finding of explained?.get(server.name)?.findings ?? [])
      lines.push(`  ${findingLine(finding, style(false))}`);
    for (const line of memberLines(server, explained?.get(server.name), false, style(false)))
      lines.push(line);
    if (scope !== undefined) lines.push(`  ${scope}`);
  }
  return lines.join("\n") + "\n";
}
