import { compareNumerals } from "./numerals.js";
import { eachPaced, highest, Pace } from "./pace.js";

/**
 * Image tags are names, not versions: `1.2.3`, `1.2.3-alpine`, `1.2`, `latest`
 * and `bookworm` may all name images of one release. A pinned tag is only
 * compared with tags of its own shape (the same text with every run of digits
 * standing for any number), ordered by those numbers.
 */

/** A tag that starts like a version (`1`, `v2.0`, `1.2.3-alpine`). */
const VERSION_LIKE = /^v?\d/;

/** The tag with each run of digits replaced by `#` (`1.2.3-alpine3.19` → `#.#.#-alpine#.#`). */
export function tagShape(tag: string): string {
  return tag.replace(/\d+/g, "#");
}

/** Whether newer tags of this tag's shape can be told: it starts like a version. */
export function isVersionTag(tag: string): boolean {
  return VERSION_LIKE.test(tag);
}

/**
 * Orders two tags: run by run, numbers by value (any length, leading zeros
 * ignored), text by code point; a tag that is a prefix of the other first.
 * Ties by value (`01` and `1`) are broken by the text, so the order is total.
 */
export function compareTags(a: string, b: string): number {
  const x = a.match(/\d+|\D+/g) ?? [];
  const y = b.match(/\d+|\D+/g) ?? [];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = compareRun(x[i]!, y[i]!);
    if (d !== 0) return d;
  }
  if (x.length !== y.length) return x.length - y.length;
  return a < b ? -1 : a > b ? 1 : 0;
}

function compareRun(p: string, q: string): number {
  const pn = /^\d/.test(p);
  const qn = /^\d/.test(q);
  if (pn && qn) return compareNumerals(p, q);
  if (pn !== qn) return pn ? -1 : 1;
  return p < q ? -1 : p > q ? 1 : 0;
}

/** The newest tag of the same shape as `pinned`, or undefined when none is offered (paced by `pace`). */
export async function newestLike(
  pinned: string,
  tags: readonly string[],
  pace: Pace = new Pace(),
): Promise<string | undefined> {
  const shape = tagShape(pinned);
  const like: string[] = [];
  await eachPaced(tags, pace, (tag) => {
    if (tagShape(tag) === shape) like.push(tag);
  });
  return highest(like, compareTags, pace);
}

/**
 * The newest plain version tag (`1.2.3`, `v2`: digits and dots after an
 * optional `v`; those without it when there are any), for an image run at `latest` or by digest; undefined when the
 * repository has none.
 */
export async function newestVersionTag(
  tags: readonly string[],
  pace: Pace = new Pace(),
): Promise<string | undefined> {
  const plain: string[] = [];
  const prefixed: string[] = [];
  await eachPaced(tags, pace, (tag) => {
    if (/^\d+(?:\.\d+)*$/.test(tag)) plain.push(tag);
    else if (/^v\d+(?:\.\d+)*$/.test(tag)) prefixed.push(tag);
  });
  return highest(plain.length > 0 ? plain : prefixed, compareTags, pace);
}
