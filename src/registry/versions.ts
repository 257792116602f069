import { compareNumerals } from "./numerals.js";
import { highest, Pace } from "./pace.js";

/** An exact semver version (what a registry may name and a command may pin). */
export const EXACT_VERSION = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;

const DIGITS = /^\d+$/;

/** The core numbers and pre-release identifiers of a version (build metadata dropped). */
function parts(version: string): { nums: string[]; pre: string[] } {
  const plus = version.indexOf("+");
  const bare = plus < 0 ? version : version.slice(0, plus);
  const dash = bare.indexOf("-");
  const core = dash < 0 ? bare : bare.slice(0, dash);
  return { nums: core.split("."), pre: dash < 0 ? [] : bare.slice(dash + 1).split(".") };
}

/**
 * Compares two exact semver versions by precedence (semver 2.0.0, section 11):
 * negative when a comes first, 0 when they rank the same, positive after.
 * Numbers compare by value at any length (compareNumerals), never through Number.
 */
export function compareVersions(a: string, b: string): number {
  const x = parts(a);
  const y = parts(b);
  for (let i = 0; i < 3; i++) {
    const d = compareNumerals(x.nums[i] ?? "0", y.nums[i] ?? "0");
    if (d !== 0) return d;
  }
  // A version without a pre-release ranks above the same version with one.
  if (x.pre.length === 0 || y.pre.length === 0) return y.pre.length - x.pre.length;
  for (let i = 0; i < Math.max(x.pre.length, y.pre.length); i++) {
    const p = x.pre[i];
    const q = y.pre[i];
    if (p === undefined || q === undefined) return p === undefined ? -1 : 1;
    if (p === q) continue;
    const pn = DIGITS.test(p);
    const qn = DIGITS.test(q);
    if (pn && qn) {
      const d = compareNumerals(p, q);
      if (d !== 0) return d;
      continue;
    }
    if (pn !== qn) return pn ? -1 : 1;
    return p < q ? -1 : 1;
  }
  return 0;
}

/** The highest version of a list, or undefined for none (one pass, paced by `pace`). */
export function newestOf(
  versions: readonly string[],
  pace: Pace = new Pace(),
): Promise<string | undefined> {
  return highest(versions, compareVersions, pace);
}
