/**
 * The candidate nearest to `given` by edit distance, when it is near enough
 * to be a likely typo (at most 2 edits, and fewer than half of its length):
 * for "did you mean ...?" hints on unknown commands and options.
 */
export function nearest(given: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const d = editDistance(given, candidate);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return bestDistance <= 2 && bestDistance * 2 < Math.max(given.length, 2) ? best : undefined;
}

/** Levenshtein distance, with one row of memory. */
function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + cost);
    }
    row = next;
  }
  return row[b.length]!;
}
