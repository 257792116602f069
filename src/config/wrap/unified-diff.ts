import type { Edit } from "./plan.js";

/** Lines of context around each change, as `diff -u` gives. */
const CONTEXT = 3;

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  if (starts[starts.length - 1] === text.length && text.length > 0) starts.pop();
  return starts;
}

function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split(/(?<=\n)/);
  return lines;
}

/** The line holding offset `at` (the last line for the end of the text). */
function lineOf(starts: number[], at: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= at) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

interface Block {
  /** Old lines [from, to) replaced by `lines`. */
  from: number;
  to: number;
  lines: string[];
}

function blocks(before: string, edits: Edit[]): Block[] {
  const starts = lineStarts(before);
  const old = splitLines(before);
  const sorted = [...edits].sort((a, b) => a.span[0] - b.span[0]);
  const groups: Array<{ from: number; to: number; edits: Edit[] }> = [];
  for (const edit of sorted) {
    const from = lineOf(starts, edit.span[0]);
    const to = lineOf(starts, Math.max(edit.span[0], edit.span[1] - 1)) + 1;
    const last = groups[groups.length - 1];
    if (last !== undefined && from < last.to) {
      last.to = Math.max(last.to, to);
      last.edits.push(edit);
    } else groups.push({ from, to, edits: [edit] });
  }
  return groups.map(({ from, to, edits: group }) => {
    const base = starts[from]!;
    let text = old.slice(from, to).join("");
    for (const e of [...group].reverse()) {
      text = text.slice(0, e.span[0] - base) + e.text + text.slice(e.span[1] - base);
    }
    // Lines the edit leaves as they were (an entry's first line) are context, not change.
    const lines = splitLines(text);
    let head = from;
    while (head < to && lines.length > 0 && lines[0] === old[head]) {
      lines.shift();
      head++;
    }
    let tail = to;
    while (tail > head && lines.length > 0 && lines[lines.length - 1] === old[tail - 1]) {
      lines.pop();
      tail--;
    }
    return { from: head, to: tail, lines };
  });
}

function show(prefix: string, line: string, mask: (line: string) => string): string[] {
  const body = mask(line.replace(/\r?\n$/, ""));
  const out = [`${prefix}${body}\n`];
  if (!line.endsWith("\n")) out.push("\\ No newline at end of file\n");
  return out;
}

/**
 * A unified diff (`diff -u` style, three lines of context) of the text
 * `before` and the same text with `edits` applied, each line passed through
 * `mask` (which hides secrets and makes the text safe to show).
 */
export function unifiedDiff(
  before: string,
  edits: Edit[],
  labels: { old: string; new: string },
  mask: (line: string) => string,
): string {
  const old = splitLines(before);
  const changes = blocks(before, edits);
  if (changes.length === 0) return "";
  let out = `--- ${labels.old}\n+++ ${labels.new}\n`;
  let shift = 0; // new line number minus old line number before the current hunk
  let i = 0;
  while (i < changes.length) {
    const first = changes[i]!;
    let j = i;
    while (j + 1 < changes.length && changes[j + 1]!.from - changes[j]!.to <= 2 * CONTEXT) j++;
    const start = Math.max(0, first.from - CONTEXT);
    const end = Math.min(old.length, changes[j]!.to + CONTEXT);
    const body: string[] = [];
    let at = start;
    let added = 0;
    for (let k = i; k <= j; k++) {
      const c = changes[k]!;
      for (; at < c.from; at++) body.push(...show(" ", old[at]!, mask));
      for (; at < c.to; at++) body.push(...show("-", old[at]!, mask));
      for (const line of c.lines) body.push(...show("+", line, mask));
      added += c.lines.length - (c.to - c.from);
    }
    for (; at < end; at++) body.push(...show(" ", old[at]!, mask));
    const oldCount = end - start;
    const newCount = oldCount + added;
    const range = (line: number, count: number) =>
      `${count === 0 ? line : line + 1}${count === 1 ? "" : `,${count}`}`;
    out += `@@ -${range(start, oldCount)} +${range(start + shift, newCount)} @@\n${body.join("")}`;
    shift += added;
    i = j + 1;
  }
  return out;
}
