/**
 * Hides the values contractpin expanded from the environment for a server:
 * wherever one would appear in what contractpin prints or writes (an error, a
 * server's stderr, a JSON-RPC error message, an HTTP status text, a warning),
 * its `${NAME}` appears instead. Pure: the pairs come from
 * `expandedValues` (src/core/source/server-source.ts).
 */

/**
 * Values shorter than this are never replaced. Replacing a one- or
 * three-character value would garble every message (`${PORT}` in place of each
 * `3`), and a value that short is no secret: it is guessed in a few tries.
 */
export const MIN_REDACTED_LENGTH = 4;

/** Replaces, in one line of text, each value with its reference. */
export type Redact = (text: string) => string;

// Where a line was cut short: its value may be shown in part there.
const CUT = /(\.\.\.|\u2026)/;

/**
 * The spellings in which a value may reach a message: as is, JSON-escaped
 * (with `/` escaped or not), and percent-encoded as a URL component, as a
 * form field (space as `+`) and as a whole URL, hex digits in either case.
 */
function spellings(value: string): string[] {
  const json = JSON.stringify(value).slice(1, -1);
  const encoded = [
    encodeURIComponent(value),
    new URLSearchParams({ v: value }).toString().slice(2),
    encodeURI(value),
  ];
  const forms = [
    value,
    json,
    json.replaceAll("/", "\\/"),
    ...encoded,
    ...encoded.map((e) => e.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase())),
  ];
  return [...new Set(forms)];
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * A function that puts `reference` in place of each `value` of `pairs` (of at
 * least MIN_REDACTED_LENGTH characters) in a line of text: whole occurrences
 * in any spelling, longest first and in one pass (a reference put in is never
 * searched again), then what is left of a value cut short at the start or end
 * of the text or next to an ellipsis (a stderr line cut at 200 characters)
 * when at least MIN_REDACTED_LENGTH of its characters remain. Each line of a
 * value of several lines is also replaced on its own.
 */
export function redactor(pairs: ReadonlyArray<readonly [string, string]>): Redact {
  // A value of several lines (a PEM key) may be shown a line at a time: each line counts.
  const kept = pairs
    .flatMap(([value, reference]) =>
      /[\r\n]/.test(value)
        ? [
            [value, reference] as const,
            ...value.split(/\r\n|\r|\n/).map((line) => [line, reference] as const),
          ]
        : [[value, reference] as const],
    )
    .filter(([value]) => value.length >= MIN_REDACTED_LENGTH);
  if (kept.length === 0) return (text) => text;
  const forms = new Map<string, string>();
  for (const [value, reference] of kept) {
    for (const form of spellings(value)) if (!forms.has(form)) forms.set(form, reference);
  }
  const whole = new RegExp(
    [...forms.keys()]
      .sort((a, b) => b.length - a.length)
      .map(escapeRegExp)
      .join("|"),
    "g",
  );
  return (text) => {
    const pieces = text.replace(whole, (found) => forms.get(found)!).split(CUT);
    // Even indices are text, odd ones the ellipses between them.
    for (let i = 0; i < pieces.length; i += 2) {
      for (const [value, reference] of kept) pieces[i] = cutEnds(pieces[i]!, value, reference);
    }
    return pieces.join("");
  };
}

/** `piece` with a value's head at its end, or its tail at its start, replaced. */
function cutEnds(piece: string, value: string, reference: string): string {
  let out = piece;
  for (let k = Math.min(value.length - 1, out.length); k >= MIN_REDACTED_LENGTH; k--) {
    if (
      value.charCodeAt(k - 1) === out.charCodeAt(out.length - 1) &&
      out.endsWith(value.slice(0, k))
    ) {
      out = out.slice(0, out.length - k) + reference;
      break;
    }
  }
  for (let k = Math.min(value.length - 1, out.length); k >= MIN_REDACTED_LENGTH; k--) {
    const tail = value.slice(value.length - k);
    if (tail.charCodeAt(0) === out.charCodeAt(0) && out.startsWith(tail)) {
      out = reference + out.slice(k);
      break;
    }
  }
  return out;
}
