import { artifactText } from "../../core/source/artifact.js";
import type { ServerFinding } from "../../core/contract/compare.js";
import { visibleText } from "../../core/visible-text.js";
import type { ServerExplained } from "../../engine/explain-server.js";
import type { PinnedServer } from "../../core/lock/lock.js";
import { describeSource } from "../../core/source/server-source.js";
import { SURFACE_KINDS } from "../../core/contract/kinds.js";
import type { Finding } from "../../core/findings/finding.js";
import type { RuleId } from "../../core/findings/rules.js";
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
  const artifact =
    server.artifact === undefined
      ? ""
      : `; artifact: ${visibleText(artifactText(server.artifact))}`;
  return `${verb} ${displayName(name)} (${server.transport} ${describeSource(server)}): ${tools}${surfaceCounts(server)}, ${server.digest} in ${lockPath}${artifact}\n`;
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

/** A server init did not read: its name, and the variables it needs that are not set. */
export interface NotRead {
  name: string;
  variables: readonly string[];
  /** Its pin in the lock before, kept as it was (init --force). */
  kept: boolean;
}

/** `${A}` or `${A} and ${B}`: the variables a server needs that are not set. */
function variablesText(variables: readonly string[]): string {
  return variables.map((v) => `\${${v}}`).join(" and ");
}

/** init's stderr line for a server it did not read because a variable it refers to is not set. */
export function renderNotReadLine(server: NotRead): string {
  const needs = `it needs ${variablesText(server.variables)}, which ${server.variables.length === 1 ? "is" : "are"} not set`;
  return server.kept
    ? `contractpin: kept ${displayName(server.name)} as the lock pinned it, not read: ${needs}\n`
    : `contractpin: skipped ${displayName(server.name)}: ${needs}; set it and run 'contractpin init --force' to pin it\n`;
}

/**
 * init's closing statement of what it did not pin: the servers skipped for a
 * variable that is not set (and whether a pin of theirs was kept unread), and
 * those the configs' import skipped. Empty when everything was pinned.
 */
export function renderNotPinned(notRead: readonly NotRead[], skipped: readonly string[]): string {
  let out = "";
  const fresh = notRead.filter((s) => !s.kept);
  const kept = notRead.filter((s) => s.kept);
  const names = (list: readonly NotRead[]) =>
    list.map((s) => `${displayName(s.name)} (${variablesText(s.variables)})`).join(", ");
  if (fresh.length > 0)
    out += `not pinned, a variable is not set: ${names(fresh)}; not in the lock, so verify does not check them: set it and run 'contractpin init --force'\n`;
  if (kept.length > 0)
    out += `not re-read, a variable is not set: ${names(kept)}; their pins are kept as they were, and verify fails on them until it is set\n`;
  if (skipped.length > 0)
    out += `not pinned, skipped above: ${skipped.map((n) => displayName(n)).join(", ")}\n`;
  return out;
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

/** The findings of a re-pin about the server's launch line (command, env, url...). */
export function launchFindings(explained: ServerExplained | undefined): Finding[] {
  return (explained?.findings ?? []).filter((f) => LAUNCH_RULES.has(f.rule));
}

const LAUNCH_RULES: ReadonlySet<RuleId> = new Set([
  "server-source-changed",
  "package-name-confusable",
]);

/**
 * What re-pinning changed, per server, from a comparison of the old pins with
 * the new: for a server that changed, verify's report of its tools and
 * surface (the same blocks, findings and groups, memberLines), so that what
 * is accepted reads as verify showed it; a drifted tool's changed fields as
 * `explained` confirms them (from both contracts), else unknown; and a line
 * for a pin whose scope changed (`scopes`); a server whose launch line
 * changed says so, with each changed part whole and marked. No colour.
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
    const launch = launchFindings(explained?.get(server.name));
    if (changed.length === 0 && parts.length === 0 && scope === undefined) {
      const tools = `(${server.tools.length} tools)`;
      if (launch.length === 0) {
        lines.push(`${displayName(server.name)}: unchanged ${tools}`);
        continue;
      }
      lines.push(
        `${displayName(server.name)}: launch line changed; its contract is unchanged ${tools}`,
      );
    } else
      lines.push(
        `${displayName(server.name)}: updated${launch.length === 0 ? "" : "; its launch line changed"}`,
      );
    // What verify said about the server and its items, as verify says it.
    for (const line of memberLines(server, explained?.get(server.name), false, style(false)))
      lines.push(line);
    if (scope !== undefined)
      for (const line of scope.split("\n")) lines.push(`  ${visibleText(line)}`);
  }
  return lines.join("\n") + "\n";
}
