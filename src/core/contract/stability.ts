import { CONTRACT_FIELDS } from "./contract.js";
import type { ServerDigests } from "./digest.js";
import { TOOLS } from "./kinds.js";
import { movedSidePins } from "./side-pins.js";
import { visibleText } from "../visible-text.js";

/** How one tool differed between reads of a server (reads are numbered from 1). */
export type UnstableTool =
  | {
      name: string;
      /** In every read, with a different contract in at least one. */
      kind: "changed";
      /**
       * The fields whose digest (or presence) differs from the first read, in
       * canonical order, then the side pins that do (`_meta.ui.visibility`, SPEC.md 13).
       */
      fields: string[];
    }
  | {
      name: string;
      /** Not in the first read, and served by `read`; or in it, and missing from `read`. */
      kind: "added" | "missing";
      /** The first read that differs from the first one for this tool. */
      read: number;
    };

/**
 * The tools whose contracts differ between reads of one server, each compared
 * with the first read, sorted by name (UTF-16 code units). Empty when every
 * read has the same server digest and the same side pins (which no digest
 * covers): the reads pin the same lock entry.
 */
export function compareReads(reads: readonly ServerDigests[]): UnstableTool[] {
  const first = reads[0];
  if (first === undefined || reads.every((r) => r.digest === first.digest && samePins(first, r)))
    return [];
  const names = new Set<string>();
  for (const read of reads) for (const name of Object.keys(read.tools)) names.add(name);
  const unstable: UnstableTool[] = [];
  for (const name of [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
    const pinned = Object.hasOwn(first.tools, name) ? first.tools[name] : undefined;
    const absence = reads.findIndex((r) => Object.hasOwn(r.tools, name) === (pinned === undefined));
    if (pinned === undefined) {
      unstable.push({ name, kind: "added", read: absence + 1 });
      continue;
    }
    if (absence !== -1) {
      unstable.push({ name, kind: "missing", read: absence + 1 });
      continue;
    }
    const fields: string[] = CONTRACT_FIELDS.filter((field) =>
      reads.some((r) => r.tools[name]!.fields[field] !== pinned.fields[field]),
    );
    for (const pin of TOOLS.sidePins)
      if (reads.some((r) => r.tools[name]![pin.member] !== pinned[pin.member]))
        fields.push(pin.field);
    if (fields.length > 0) unstable.push({ name, kind: "changed", fields });
  }
  return unstable;
}

/** Whether every tool the two reads share records the same side pins. */
function samePins(a: ServerDigests, b: ServerDigests): boolean {
  for (const name of Object.keys(a.tools)) {
    const other = Object.hasOwn(b.tools, name) ? b.tools[name] : undefined;
    if (other !== undefined && movedSidePins(TOOLS.sidePins, a.tools[name]!, other).length > 0)
      return false;
  }
  return true;
}

/** How many unstable tools a message names before "and N more". */
const NAMED_TOOLS = 5;

/**
 * One line that names the unstable tools and fields, for example
 * `unstable between 3 reads: tool "later" added in read 2, tool "status" (description)`.
 * Tool names are server text: shown through visibleText, quoted.
 */
export function describeUnstable(readCount: number, unstable: readonly UnstableTool[]): string {
  const named = unstable.slice(0, NAMED_TOOLS).map((tool) => {
    const name = `tool ${JSON.stringify(visibleText(tool.name))}`;
    switch (tool.kind) {
      case "changed":
        return `${name} (${tool.fields.join(", ")})`;
      case "added":
        return `${name} added in read ${tool.read}`;
      case "missing":
        return `${name} missing from read ${tool.read}`;
    }
  });
  const more = unstable.length - named.length;
  if (more > 0) named.push(`and ${more} more`);
  return `unstable between ${readCount} reads: ${named.join(", ")}`;
}
