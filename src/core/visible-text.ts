/**
 * Text from a server (descriptions, names, schema strings, error messages,
 * stderr lines) is data, never terminal control. Every character that a
 * terminal would act on, or that a reader cannot see, is shown as `<U+XXXX>`:
 *
 * - controls (C0, DEL, C1): so `ESC[2J` prints as `<U+001B>[2J` and clears
 *   nothing, and no escape sequence (colour, title, hyperlink) is interpreted;
 * - bidirectional controls (U+202A-U+202E, U+2066-U+2069, U+200E, U+200F,
 *   U+061C), which reorder what the reader sees;
 * - format and default-ignorable characters: zero-width spaces and joiners,
 *   the soft hyphen, tag characters (U+E0000-U+E007F), Hangul fillers,
 *   variation selectors (see below), noncharacters;
 * - line and paragraph separators (U+2028, U+2029), and lone surrogates.
 *
 * One variation selector U+FE00-U+FE0F right after a visible character is
 * kept: it picks an emoji's presentation ("⚠️") and hides nothing. A second
 * one in a row, or any of U+E0100-U+E01EF, is shown: runs of them can smuggle
 * bytes past a reader.
 */

// Everything that may be hidden; the variation selectors are decided in context.
const CANDIDATE =
  /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}\p{Noncharacter_Code_Point}]/u;
const CANDIDATES = new RegExp(CANDIDATE.source, "gu");

/** Options of {@link visibleText}. */
export interface VisibleTextOptions {
  /**
   * Keep line feeds (U+000A) as line breaks, for a block the caller indents
   * line by line (default false: a line feed is shown as `<U+000A>`, so the
   * result is one line). A carriage return is always shown.
   */
  multiline?: boolean;
}

/** `U+` and at least four uppercase hex digits: `U+001B`, `U+E0041`. */
export function codePointLabel(codePoint: number): string {
  return `U+${codePoint.toString(16).toUpperCase().padStart(4, "0")}`;
}

/**
 * Server text made safe to show: every hidden or controlling character
 * replaced by `<U+XXXX>` (see the module comment). Text without any is
 * returned as it is.
 */
export function visibleText(text: string, options: VisibleTextOptions = {}): string {
  if (!CANDIDATE.test(text)) return text;
  const multiline = options.multiline === true;
  return text.replace(CANDIDATES, (ch: string, offset: number, whole: string) => {
    const cp = ch.codePointAt(0)!;
    if (cp === 0x0a && multiline) return ch;
    if (isKeptSelector(cp, whole, offset)) return ch;
    return `<${codePointLabel(cp)}>`;
  });
}

/**
 * The code points of `text` that {@link visibleText} would show as
 * `<U+XXXX>`, in order (line feeds only when `multiline` is false).
 */
export function hiddenCodePoints(text: string, options: VisibleTextOptions = {}): number[] {
  const found: number[] = [];
  if (!CANDIDATE.test(text)) return found;
  const multiline = options.multiline === true;
  for (const match of text.matchAll(CANDIDATES)) {
    const cp = match[0].codePointAt(0)!;
    if (cp === 0x0a && multiline) continue;
    if (isKeptSelector(cp, text, match.index)) continue;
    found.push(cp);
  }
  return found;
}

/** A single U+FE00-U+FE0F right after a visible character. */
function isKeptSelector(cp: number, text: string, offset: number): boolean {
  if (cp < 0xfe00 || cp > 0xfe0f || offset === 0) return false;
  // The character before: one code unit, or a surrogate pair.
  const low = text.charCodeAt(offset - 1);
  const start = low >= 0xdc00 && low <= 0xdfff && offset >= 2 ? offset - 2 : offset - 1;
  const before = String.fromCodePoint(text.codePointAt(start)!);
  return !CANDIDATE.test(before) && !/\s/u.test(before);
}
