import type { ToolStatus } from "../../core/contract/compare.js";
import type { ChangeEntry } from "./change-entries.js";
import { entryLines, statusLabel } from "./entry-text.js";
import type { Style } from "./style.js";

/**
 * One item of a server as the text report shows it, whatever its kind (a
 * tool, the instructions, a prompt, a template, a list the server stopped
 * or started advertising): each kind builds its blocks, and
 * {@link blockLines} is the one way they are written.
 */
export interface ItemBlock {
  status: ToolStatus;
  /** What the item is, shown after its status: a tool's name, `prompt <name>`, `instructions`. */
  label: string;
  /** Shown after the label: `(likely renamed from x)`. */
  note?: string;
  /** Spaces before `changed:`, so that a server's drifted tools line up. */
  pad?: number;
  /** For a drifted item: the members that changed, or why they are unknown. */
  changed?: string;
  /** An item shown whole (an added one): its lines. */
  whole?: readonly string[];
  /** Its own entries: findings with the changes they are about, then the other changes. */
  entries: readonly ChangeEntry[];
  /** How many entries it shares with other items of its kind, shown once above. */
  shared?: number;
}

/**
 * An item's block: `STATUS  label  changed: ...`, then the item whole when
 * added, then its entries (findings first, each with the changes it is
 * about), then how many of its changes are shown above as shared.
 */
export function blockLines(
  item: ItemBlock,
  serverOk: boolean,
  verbose: boolean,
  s: Style,
): string[] {
  let line = `  ${statusLabel(item.status, serverOk, s)}  ${item.label}`;
  if (item.note !== undefined) line += `  ${item.note}`;
  if (item.changed !== undefined)
    line = `${line.padEnd(line.length + (item.pad ?? 0))}  changed: ${item.changed}`;
  if (item.status === "added" && serverOk) line += s.dim("  (allowed by --allow-new)");
  const lines = [line];
  for (const l of item.whole ?? []) lines.push(l);
  for (const entry of item.entries)
    for (const l of entryLines(entry, "    ", s, verbose)) lines.push(l);
  const common = item.shared ?? 0;
  if (common > 0)
    lines.push(
      s.dim(`    and ${common} change${common === 1 ? "" : "s"} shared with other tools, above`),
    );
  return lines;
}
