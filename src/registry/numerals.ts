/**
 * The numbers in versions and tags, compared exactly: a run of decimal digits
 * of any length, by its value. Never through Number (which rounds past 2^53:
 * 9007199254740993 would equal 9007199254740992) nor BigInt (whose decimal
 * printing is quadratic in V8 for a long run, and a registry chooses the run).
 */

/** The digits without their leading zeros (`007` is `7`, `000` is `0`). */
export function withoutLeadingZeros(digits: string): string {
  let i = 0;
  while (i < digits.length - 1 && digits.charCodeAt(i) === 0x30 /* 0 */) i++;
  return i === 0 ? digits : digits.slice(i);
}

/**
 * Orders two runs of decimal digits by value, leading zeros ignored: negative
 * when `a` is the smaller, 0 when they are equal. Linear in their lengths.
 */
export function compareNumerals(a: string, b: string): number {
  const x = withoutLeadingZeros(a);
  const y = withoutLeadingZeros(b);
  if (x.length !== y.length) return x.length < y.length ? -1 : 1;
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * The highest item by `compare`, or undefined for none: one pass, no sort
 * (a registry may list hundreds of thousands). Of items that rank the same,
 * the last, as a stable sort's last item would be.
 */
export function highest<T>(items: Iterable<T>, compare: (a: T, b: T) => number): T | undefined {
  let best: T | undefined;
  let any = false;
  for (const item of items) {
    if (!any || compare(item, best as T) >= 0) best = item;
    any = true;
  }
  return best;
}
