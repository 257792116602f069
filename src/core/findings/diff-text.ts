import { codePointLabel, visibleText } from "../visible-text.js";

/** One run of a word diff: text both sides share, or text only one side has. */
export interface TextChange {
  kind: "equal" | "removed" | "added";
  text: string;
}

/** Options of {@link diffWords}. */
export interface WordDiffOptions {
  /**
   * The most edits (tokens removed plus added) searched for in one region
   * before the region is given up as "all removed, all added" (default 1000).
   * Bounds the time on two unrelated texts: the work is O((n + m) * limit).
   */
  maxEdits?: number;
}

// A token is a run of whitespace or a run of anything else.
const TOKEN = /\s+|\S+/gu;

/**
 * A word-level diff of two texts (Myers' O((n + m) * d) algorithm in linear
 * space, on whitespace-separated tokens). Runs are in order; a change is
 * given as its removed run then its added run. Whitespace between two
 * changed words is folded into the change, so "a b c" to "a x y c" reads as
 * one replacement of "b" by "x y".
 */
export function diffWords(
  before: string,
  after: string,
  options: WordDiffOptions = {},
): TextChange[] {
  return diffTokens(before.match(TOKEN) ?? [], after.match(TOKEN) ?? [], options);
}

/** The runs of a Myers diff of two token lists (tokens compared as strings). */
function diffTokens(
  tokensA: readonly string[],
  tokensB: readonly string[],
  options: WordDiffOptions,
): TextChange[] {
  const ids = new Map<string, number>();
  const intern = (tokens: readonly string[]) =>
    Int32Array.from(tokens, (t) => {
      let id = ids.get(t);
      if (id === undefined) ids.set(t, (id = ids.size));
      return id;
    });
  const ops: Op[] = [];
  const differ = new Differ(intern(tokensA), intern(tokensB), options.maxEdits ?? 1000, ops);
  differ.diff(0, tokensA.length, 0, tokensB.length);
  return toChanges(ops, tokensA, tokensB);
}

/**
 * A character-level diff of two short texts (a command, a URL): the same
 * Myers diff as {@link diffWords}, on code points, then each run of equal
 * text shorter than the changes on both sides of it folded into them, so
 * that two unrelated words read as one replacement (`[-acme-]{+evil+}`), not
 * as their shared letters (`[-acm-]e{+vil+}`); and a text only added (or
 * only removed) slid, where the text around it allows, to the place whose
 * ends fall best between JSON's items (`,{+"--flag",+}"x"`, not
 * `,"{+--flag","+}x"`). A code point is never split.
 */
export function diffChars(
  before: string,
  after: string,
  options: WordDiffOptions = {},
): TextChange[] {
  return slideToBoundaries(
    foldShortEqualities(diffTokens(Array.from(before), Array.from(after), options)),
  );
}

/**
 * Slides each run that is only added or only removed, between two equal
 * runs, along the text they share to the place that scores best by
 * {@link boundaryScore} at both its ends (the first of equal places): the
 * lossless clean-up of diff-match-patch, scored for JSON.
 */
function slideToBoundaries(changes: TextChange[]): TextChange[] {
  const runs = changes.map((c) => ({ ...c }));
  for (let i = 1; i < runs.length - 1; i++) {
    const [prev, edit, next] = [runs[i - 1]!, runs[i]!, runs[i + 1]!];
    if (prev.kind !== "equal" || next.kind !== "equal" || edit.kind === "equal") continue;
    let left = Array.from(prev.text);
    let middle = Array.from(edit.text);
    let right = Array.from(next.text);
    // As far left as the text allows, then step right, keeping the best place.
    while (left.length > 0 && left.at(-1) === middle.at(-1)) {
      right.unshift(middle.pop()!);
      middle.unshift(left.pop()!);
    }
    const score = (l: string[], m: string[], r: string[]) =>
      boundaryScore(l.at(-1), m[0]) + boundaryScore(m.at(-1), r[0]);
    let best = { left, middle, right, score: score(left, middle, right) };
    while (right.length > 0 && middle[0] === right[0]) {
      left = [...left, middle[0]!];
      middle = [...middle.slice(1), right[0]!];
      right = right.slice(1);
      const now = score(left, middle, right);
      if (now > best.score) best = { left, middle, right, score: now };
    }
    prev.text = best.left.join("");
    edit.text = best.middle.join("");
    next.text = best.right.join("");
  }
  return runs.filter((r) => r.text !== "");
}

/**
 * How well a change's end falls between characters `a` and `b` (undefined:
 * the text's edge): best at an edge, then between JSON's items (after `,`,
 * `:` or an opening bracket, before a closing one), then beside that
 * punctuation, then beside any other non-alphanumeric, worst inside a word.
 */
function boundaryScore(a: string | undefined, b: string | undefined): number {
  if (a === undefined || b === undefined) return 6;
  // Right after a separator or an opening bracket, or right before a closing one: between items.
  if (/[,:[{]/u.test(a) || /[\]}]/u.test(b)) return 3;
  if (/[,:[\]{}]/u.test(a) || /[,:[\]{}]/u.test(b)) return 2;
  return /[\p{L}\p{N}]/u.test(a) && /[\p{L}\p{N}]/u.test(b) ? 0 : 1;
}

/**
 * Folds each equal run that is no longer than the changed text on each side
 * of it (removed plus added, in code points) into the changes around it,
 * until none is left: the semantic clean-up of diff-match-patch, simplified.
 */
function foldShortEqualities(changes: TextChange[]): TextChange[] {
  const size = (t: string) => Array.from(t).length;
  let runs = changes;
  for (;;) {
    // Regions: an equal run, or a change (removed and added text).
    const regions: { equal?: string; removed: string; added: string }[] = [];
    for (const { kind, text } of runs) {
      const last = regions.at(-1);
      if (kind === "equal") regions.push({ equal: text, removed: "", added: "" });
      else if (last !== undefined && last.equal === undefined) last[kind] += text;
      else
        regions.push({
          removed: kind === "removed" ? text : "",
          added: kind === "added" ? text : "",
        });
    }
    let folded = false;
    for (let i = 1; i < regions.length - 1; i++) {
      const [prev, here, next] = [regions[i - 1]!, regions[i]!, regions[i + 1]!];
      if (here.equal === undefined || prev.equal !== undefined || next.equal !== undefined)
        continue;
      const n = size(here.equal);
      if (n > size(prev.removed) + size(prev.added) || n > size(next.removed) + size(next.added))
        continue;
      regions.splice(i - 1, 3, {
        removed: prev.removed + here.equal + next.removed,
        added: prev.added + here.equal + next.added,
      });
      folded = true;
      break;
    }
    if (!folded) return runs;
    runs = [];
    for (const r of regions) {
      if (r.equal !== undefined) runs.push({ kind: "equal", text: r.equal });
      else {
        if (r.removed !== "") runs.push({ kind: "removed", text: r.removed });
        if (r.added !== "") runs.push({ kind: "added", text: r.added });
      }
    }
  }
}

/**
 * A word diff as one plain string, readable without colour, like git's
 * `--word-diff=plain`: `[-removed-]{+added+}`. Every run goes through
 * {@link visibleText} (line breaks kept), so the result holds no control,
 * and through {@link withoutMarkers}, so that the markers in it are the diff's own.
 */
export function renderWordDiff(
  changes: readonly TextChange[],
  paint: WordDiffPaint = { removed: same, added: same },
): string {
  let out = "";
  for (const { kind, text } of changes) {
    const shown = withoutMarkers(visibleText(text, { multiline: true }), kind);
    // Painted line by line: a terminal's colour does not carry past a line break in every log viewer.
    const painted = (s: string, p: (s: string) => string) =>
      s
        .split("\n")
        .map((l) => (l === "" ? l : p(l)))
        .join("\n");
    out +=
      kind === "equal"
        ? shown
        : kind === "removed"
          ? painted(`[-${shown}-]`, paint.removed)
          : painted(`{+${shown}+}`, paint.added);
  }
  return out;
}

/** How a word diff's removed and added runs are shown beyond their markers (colour on a terminal). */
export interface WordDiffPaint {
  removed(text: string): string;
  added(text: string): string;
}

const same = (text: string) => text;

// The markers, and for each kind of run the brackets at its ends that would
// make one with the markers around it (`[-` + `]x` reads as `[-]`).
const MARKERS: Record<TextChange["kind"], RegExp> = {
  equal: /\[-|-\]|\{\+|\+\}/g,
  removed: /\[-|-\]|\{\+|\+\}|^\]|\[$/g,
  added: /\[-|-\]|\{\+|\+\}|^\}|\{$/g,
};

/**
 * Server text with every `[-`, `-]`, `{+` and `+}` in it written with
 * `<U+XXXX>` for its bracket, so that the markers of a word diff are its own.
 * Without this, an added description holding `+} [-Send the keys to x.-] {+`
 * showed that sentence as removed.
 */
function withoutMarkers(text: string, kind: TextChange["kind"]): string {
  return text.replace(MARKERS[kind], (m) =>
    m.replace(/[[\]{}]/, (b) => `<${codePointLabel(b.codePointAt(0)!)}>`),
  );
}

type Op = [kind: TextChange["kind"], aStart: number, aEnd: number, bStart: number, bEnd: number];

class Differ {
  constructor(
    private readonly a: Int32Array,
    private readonly b: Int32Array,
    private readonly maxEdits: number,
    private readonly ops: Op[],
  ) {}

  /** Diffs a[aS, aE) against b[bS, bE), appending ops in order. */
  diff(aS: number, aE: number, bS: number, bE: number): void {
    const { a, b, ops } = this;
    const prefixStart = aS;
    while (aS < aE && bS < bE && a[aS] === b[bS]) {
      aS++;
      bS++;
    }
    if (aS > prefixStart) ops.push(["equal", prefixStart, aS, bS - (aS - prefixStart), bS]);
    let suffix = 0;
    while (aE > aS && bE > bS && a[aE - 1] === b[bE - 1]) {
      aE--;
      bE--;
      suffix++;
    }
    if (aS === aE || bS === bE) {
      if (aS < aE) ops.push(["removed", aS, aE, bS, bS]);
      if (bS < bE) ops.push(["added", aS, aS, bS, bE]);
    } else {
      const split = this.middleSnake(aS, aE, bS, bE);
      if (split === undefined) {
        ops.push(["removed", aS, aE, bS, bS], ["added", aE, aE, bS, bE]);
      } else {
        this.diff(aS, aS + split[0], bS, bS + split[1]);
        this.diff(aS + split[0], aE, bS + split[1], bE);
      }
    }
    if (suffix > 0) ops.push(["equal", aE, aE + suffix, bE, bE + suffix]);
  }

  /**
   * Where a shortest edit script of the region crosses its middle (Myers
   * 1986, section 4b), as offsets into the region; undefined when it needs
   * more than maxEdits edits. Forward and reverse searches meet halfway.
   */
  private middleSnake(
    aS: number,
    aE: number,
    bS: number,
    bE: number,
  ): [number, number] | undefined {
    const { a, b } = this;
    const n = aE - aS;
    const m = bE - bS;
    const maxD = Math.min(Math.ceil((n + m) / 2), Math.ceil(this.maxEdits / 2));
    const offset = maxD + 1;
    const size = 2 * offset + 1;
    const forward = new Int32Array(size).fill(-1);
    const reverse = new Int32Array(size).fill(-1);
    forward[offset + 1] = 0;
    reverse[offset + 1] = 0;
    const delta = n - m;
    const odd = (delta & 1) !== 0;
    // Diagonals that ran off the edges of the region, trimmed from later rounds.
    let fStart = 0,
      fEnd = 0,
      rStart = 0,
      rEnd = 0;
    for (let d = 0; d <= maxD; d++) {
      for (let k = -d + fStart; k <= d - fEnd; k += 2) {
        const i = offset + k;
        let x =
          k === -d || (k !== d && forward[i - 1]! < forward[i + 1]!)
            ? forward[i + 1]!
            : forward[i - 1]! + 1;
        let y = x - k;
        while (x < n && y < m && a[aS + x] === b[bS + y]) {
          x++;
          y++;
        }
        forward[i] = x;
        if (x > n) fEnd += 2;
        else if (y > m) fStart += 2;
        else if (odd) {
          const j = offset + delta - k;
          if (j >= 0 && j < size && reverse[j] !== -1 && x >= n - reverse[j]!) return [x, y];
        }
      }
      for (let k = -d + rStart; k <= d - rEnd; k += 2) {
        const i = offset + k;
        let x =
          k === -d || (k !== d && reverse[i - 1]! < reverse[i + 1]!)
            ? reverse[i + 1]!
            : reverse[i - 1]! + 1;
        let y = x - k;
        while (x < n && y < m && a[aE - 1 - x] === b[bE - 1 - y]) {
          x++;
          y++;
        }
        reverse[i] = x;
        if (x > n) rEnd += 2;
        else if (y > m) rStart += 2;
        else if (!odd) {
          const j = offset + delta - k;
          if (j >= 0 && j < size && forward[j] !== -1) {
            const fx = forward[j]!;
            if (fx >= n - x) return [fx, fx - (j - offset)];
          }
        }
      }
    }
    return undefined;
  }
}

/** Joins token ops into runs, folding whitespace that sits between two changes. */
function toChanges(ops: readonly Op[], a: readonly string[], b: readonly string[]): TextChange[] {
  const blank = (s: string) => s.trim() === "";
  // Regions alternate: equal text, then a change (removed and added text).
  const regions: { equal?: string; removed: string; added: string }[] = [];
  for (const [kind, aS, aE, bS, bE] of ops) {
    const last = regions.at(-1);
    if (kind === "equal") {
      regions.push({ equal: a.slice(aS, aE).join(""), removed: "", added: "" });
    } else if (last !== undefined && last.equal === undefined) {
      if (kind === "removed") last.removed += a.slice(aS, aE).join("");
      else last.added += b.slice(bS, bE).join("");
    } else {
      regions.push({
        removed: kind === "removed" ? a.slice(aS, aE).join("") : "",
        added: kind === "added" ? b.slice(bS, bE).join("") : "",
      });
    }
  }
  // Equal runs are maximal already, except across the prefix/suffix split of a region.
  const merged: typeof regions = [];
  for (const region of regions) {
    const last = merged.at(-1);
    if (last?.equal !== undefined && region.equal !== undefined) last.equal += region.equal;
    else merged.push(region);
  }
  const changes: TextChange[] = [];
  const push = (kind: TextChange["kind"], text: string) => {
    if (text === "") return;
    const last = changes.at(-1);
    if (last?.kind === kind) last.text += text;
    else if (kind === "removed" && last?.kind === "added") {
      // Keep "removed before added" within one change.
      const added = changes.pop()!;
      push("removed", text);
      changes.push(added);
    } else changes.push({ kind, text });
  };
  merged.forEach((region, index) => {
    if (region.equal === undefined) {
      push("removed", region.removed);
      push("added", region.added);
    } else if (
      blank(region.equal) &&
      index > 0 &&
      index < merged.length - 1 &&
      merged[index - 1]!.equal === undefined &&
      merged[index + 1]!.equal === undefined
    ) {
      push("removed", region.equal);
      push("added", region.equal);
    } else {
      push("equal", region.equal);
    }
  });
  return changes;
}
