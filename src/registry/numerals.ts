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
