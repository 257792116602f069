import type { ServerFinding } from "../../core/compare.js";
import type { ServerExplained } from "../../engine/explain.js";
import type { PinnedServer } from "../../core/lock.js";
import { describeSource } from "../../core/server-source.js";
import { SURFACE_KINDS } from "../../core/surface/kinds.js";
import { shellWord } from "./shell.js";
import { displayName, sanitizeLine, style } from "./style.js";
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

/** A file a pin command wrote, or found already as it would write it. */
export interface PinFile {
  path: string;
  written: boolean;
}

/**
 * The line after a pin that names the files written and what to commit: the
 * lock and, when it exists, its snapshots file (`snapshots` undefined when
 * there is none), since a teammate without the snapshots gets no diff from
 * verify and an `audit` that cannot run. Nothing to commit when neither changed.
 */
export function renderWritten(lock: PinFile, snapshots: PinFile | undefined): string {
  const files = snapshots === undefined ? [lock] : [lock, snapshots];
  const written = files.filter((f) => f.written).map((f) => sanitizeLine(f.path));
  const unchanged = files.filter((f) => !f.written).map((f) => sanitizeLine(f.path));
  if (written.length === 0)
    return `${unchanged.join(" and ")} ${unchanged.length === 1 ? "is" : "are"} unchanged\n`;
  const add = `git add ${files.map((f) => shellWord(f.path)).join(" ")}`;
  const note =
    snapshots === undefined
      ? " (no snapshots file)"
      : unchanged.length > 0
        ? ` (${unchanged[0]} unchanged)`
        : "";
  const commit = files.length === 1 ? "commit it" : "commit both";
  return `wrote ${written.join(" and ")}${note}; ${commit}: ${add}\n`;
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
    for (const line of memberLines(server, explained?.get(server.name), false, style(false)))
      lines.push(line);
    if (scope !== undefined) lines.push(`  ${scope}`);
  }
  return lines.join("\n") + "\n";
}
