/**
 * PEP 440's permissive version syntax (its appendix, "Parsing version strings
 * with regular expressions"), read by a hand-written scanner instead of that
 * regular expression: V8 runs the expression with a backtracking stack, which
 * a registry's file name of a few MiB of `1.1.1...` overflows, and the scanner
 * is one forward pass. It gives exactly the expression's groups (the test
 * checks it against the expression on random text):
 *
 *     ^\s*v?(?:(\d+)!)?(\d+(?:\.\d+)*)
 *     (?:[-_.]?(a|b|c|rc|alpha|beta|pre|preview)[-_.]?(\d+)?)?
 *     (?:-(\d+)|[-_.]?(post|rev|r)[-_.]?(\d+)?)?
 *     (?:[-_.]?(dev)[-_.]?(\d+)?)?
 *     (?:\+([a-z0-9]+(?:[-_.][a-z0-9]+)*))?\s*$       (case-insensitive)
 *
 * Each choice the expression could backtrack over has one outcome that can
 * succeed: a shorter run of digits leaves a digit nothing after it takes; a
 * shorter label (`a` of `alpha`, `pre` of `preview`, `r` of `rev`) leaves
 * letters nothing after it takes; and a separator taken by one group is one
 * the next group may go without.
 */

/** The groups of the expression: epoch, release, pre label, pre number, post number (`-N`), post label, post number, dev label, dev number, local. */
export type Pep440Groups = [
  epoch: string | undefined,
  release: string,
  preLabel: string | undefined,
  preNumber: string | undefined,
  postNumberAfterDash: string | undefined,
  postLabel: string | undefined,
  postNumber: string | undefined,
  devLabel: string | undefined,
  devNumber: string | undefined,
  local: string | undefined,
];

// Longest first: a shorter label that is a prefix of a longer one cannot succeed where it is.
const PRE_LABELS = ["alpha", "a", "beta", "b", "c", "rc", "preview", "pre"];
const POST_LABELS = ["post", "rev", "r"];

/** The expression's groups for `text`, or undefined where the expression does not match. */
export function scanPep440(text: string): Pep440Groups | undefined {
  const n = text.length;
  let i = 0;
  const digitsEnd = (from: number): number => {
    let j = from;
    while (j < n && isDigit(text.charCodeAt(j))) j++;
    return j;
  };
  const separatorAt = (at: number): boolean => {
    const c = text.charCodeAt(at);
    return c === 0x2d /* - */ || c === 0x5f /* _ */ || c === 0x2e; /* . */
  };
  // A label of `labels` at `at`, optionally after one separator, and the position after it.
  const labelAt = (at: number, labels: readonly string[]): [string, number] | undefined => {
    const from = separatorAt(at) ? at + 1 : at;
    const label = labels.find((l) => asciiCaseless(text, from, l));
    return label === undefined
      ? undefined
      : [text.slice(from, from + label.length), from + label.length];
  };
  // After a label: an optional separator, then optional digits (both taken when there).
  const numberAfter = (at: number): [string | undefined, number] => {
    const from = separatorAt(at) ? at + 1 : at;
    const end = digitsEnd(from);
    return end > from ? [text.slice(from, end), end] : [undefined, from];
  };

  while (i < n && isSpace(text.charCodeAt(i))) i++;
  if ((text.charCodeAt(i) | 0x20) === 0x76 /* v or V */) i++;
  let end = digitsEnd(i);
  if (end === i) return undefined;
  let epoch: string | undefined;
  if (text.charCodeAt(end) === 0x21 /* ! */) {
    epoch = text.slice(i, end);
    i = end + 1;
    end = digitsEnd(i);
    if (end === i) return undefined;
  }
  const releaseStart = i;
  i = end;
  while (text.charCodeAt(i) === 0x2e /* . */ && isDigit(text.charCodeAt(i + 1)))
    i = digitsEnd(i + 1);
  const release = text.slice(releaseStart, i);

  let preLabel: string | undefined;
  let preNumber: string | undefined;
  const pre = labelAt(i, PRE_LABELS);
  if (pre !== undefined) [preLabel, [preNumber, i]] = [pre[0], numberAfter(pre[1])];

  let postNumberAfterDash: string | undefined;
  let postLabel: string | undefined;
  let postNumber: string | undefined;
  if (text.charCodeAt(i) === 0x2d /* - */ && isDigit(text.charCodeAt(i + 1))) {
    end = digitsEnd(i + 1);
    postNumberAfterDash = text.slice(i + 1, end);
    i = end;
  } else {
    const post = labelAt(i, POST_LABELS);
    if (post !== undefined) [postLabel, [postNumber, i]] = [post[0], numberAfter(post[1])];
  }

  let devLabel: string | undefined;
  let devNumber: string | undefined;
  const dev = labelAt(i, ["dev"]);
  if (dev !== undefined) [devLabel, [devNumber, i]] = [dev[0], numberAfter(dev[1])];

  let local: string | undefined;
  if (text.charCodeAt(i) === 0x2b /* + */) {
    const localStart = ++i;
    while (isAlphanumeric(text.charCodeAt(i))) {
      while (isAlphanumeric(text.charCodeAt(i))) i++;
      if (separatorAt(i) && isAlphanumeric(text.charCodeAt(i + 1))) i++;
    }
    if (i === localStart) return undefined;
    local = text.slice(localStart, i);
  }

  while (i < n && isSpace(text.charCodeAt(i))) i++;
  if (i !== n) return undefined;
  return [
    epoch,
    release,
    preLabel,
    preNumber,
    postNumberAfterDash,
    postLabel,
    postNumber,
    devLabel,
    devNumber,
    local,
  ];
}

/** Whether `text` holds `word` (lower-case ASCII letters) at `at`, ASCII letters in either case. */
function asciiCaseless(text: string, at: number, word: string): boolean {
  for (let k = 0; k < word.length; k++) {
    if ((text.charCodeAt(at + k) | 0x20) !== word.charCodeAt(k)) return false;
  }
  return true;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isAlphanumeric(c: number): boolean {
  const lower = c | 0x20;
  return isDigit(c) || (lower >= 0x61 && lower <= 0x7a);
}

/** What `\s` matches in a JavaScript regular expression. */
function isSpace(c: number): boolean {
  return (
    (c >= 0x09 && c <= 0x0d) ||
    c === 0x20 ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}
