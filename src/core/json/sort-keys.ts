/**
 * Sorts member names by UTF-16 code units (spec 3.3), which is what `<` on
 * strings compares. Objects in tool schemas are small, where an insertion sort
 * beats Array#sort's generic comparison; large ones use Array#sort, whose
 * default order is also UTF-16 code units.
 */
export function sortKeys(keys: string[]): void {
  const n = keys.length;
  if (n > 16) {
    keys.sort();
    return;
  }
  for (let i = 1; i < n; i++) {
    const key = keys[i]!;
    let j = i - 1;
    while (j >= 0 && keys[j]! > key) {
      keys[j + 1] = keys[j]!;
      j--;
    }
    keys[j + 1] = key;
  }
}
