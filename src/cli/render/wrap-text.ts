import { visibleText } from "../../core/visible-text.js";
import type { FileResult } from "../../config/wrap/rewrite-configs.js";
import { lineMasker } from "../../config/wrap/secrets.js";
import { unifiedDiff } from "../../config/wrap/unified-diff.js";
import { displayName, sanitizeLine } from "./style.js";

/** The words of one command: "wrap" or "unwrap". */
export interface Verbs {
  /** "wrapped" or "restored". */
  done: string;
  /** "would wrap" or "would restore". */
  planned: string;
}

/**
 * One block per file: the file, what changed and where its backup is, then
 * one line per entry that changed or was left alone. Entries that were
 * already as asked (wrapped, for wrap; not wrapped, for unwrap) are counted,
 * not listed. Names and reasons are shown with their hidden characters visible.
 */
export function renderOutcomes(results: FileResult[], verbs: Verbs, dryRun: boolean): string {
  let out = "";
  for (const { plan, backup, note } of results) {
    const changed = plan.outcomes.filter((o) => o.action === "changed");
    const same = plan.outcomes.filter((o) => o.action === "unchanged");
    const head =
      changed.length === 0
        ? "nothing to change"
        : dryRun
          ? `${verbs.planned} ${changed.length} (dry run: nothing written)`
          : `${verbs.done} ${changed.length}${backup === undefined ? "" : `; backup: ${sanitizeLine(backup)}`}`;
    out += `${sanitizeLine(plan.file)}: ${head}\n`;
    if (note !== undefined) out += `  note: ${sanitizeLine(note)}\n`;
    for (const o of changed)
      out += `  ${(dryRun ? verbs.planned : verbs.done).padEnd(14)}${displayName(o.name)}\n`;
    for (const o of plan.outcomes.filter((x) => x.action === "left")) {
      out += `  ${"left alone".padEnd(14)}${displayName(o.name)}: ${sanitizeLine(o.reason)}\n`;
    }
    if (same.length > 0) {
      const why = [...new Set(same.map((o) => o.reason))].join(", ");
      out += `  ${"unchanged".padEnd(14)}${same.map((o) => displayName(o.name)).join(", ")} (${why})\n`;
    }
  }
  return out;
}

/**
 * The change to every file as a unified diff, secrets masked (a literal
 * secret of the config never appears, nor the stored original of a wrapped
 * entry) and every line made safe to show.
 */
export function renderDiff(results: FileResult[]): string {
  let out = "";
  for (const { plan } of results) {
    if (plan.edits.length === 0) continue;
    const mask = lineMasker(plan.secrets);
    const file = sanitizeLine(plan.file);
    // Tabs are indentation here, and harmless: every other hidden character is shown.
    out += unifiedDiff(plan.before, plan.edits, { old: file, new: file }, (line) =>
      mask(line)
        .split("\t")
        .map((part) => visibleText(part))
        .join("\t"),
    );
  }
  return out;
}
