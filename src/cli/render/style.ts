/** ANSI styling that collapses to plain text when colour is off. */
export interface Style {
  bold(s: string): string;
  dim(s: string): string;
  red(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
}

const wrap = (open: number, close: number) => (s: string) => `\u001b[${open}m${s}\u001b[${close}m`;
const plain = (s: string) => s;

/** Styling for a terminal (`color` true) or for logs and pipes (`color` false). */
export function style(color: boolean): Style {
  if (!color) return { bold: plain, dim: plain, red: plain, green: plain, yellow: plain };
  return {
    bold: wrap(1, 22),
    dim: wrap(2, 22),
    red: wrap(31, 39),
    green: wrap(32, 39),
    yellow: wrap(33, 39),
  };
}

// Characters a terminal would act on or hide: controls, format characters
// (bidi overrides, zero-width), separators, unpaired surrogates.
const UNSAFE = /[\p{Cc}\p{Cf}\p{Z}\p{Cs}"\\]/u;
const UNSAFE_GLOBAL = /[\p{Cc}\p{Cf}\p{Z}\p{Cs}]/gu;

/**
 * A server or tool name as shown on a terminal line: as is when it is plain,
 * otherwise quoted with every invisible or control character as a \u escape,
 * so that a name cannot hide text or move the cursor.
 */
export function displayName(name: string): string {
  if (name !== "" && !UNSAFE.test(name)) return name;
  return JSON.stringify(name).replace(UNSAFE_GLOBAL, (c) => {
    let escaped = "";
    for (let i = 0; i < c.length; i++)
      escaped += `\\u${c.charCodeAt(i).toString(16).padStart(4, "0")}`;
    return escaped;
  });
}

/**
 * Text that came from a server or a file (an error message, a stderr line)
 * made safe for one line of a terminal or CI log: escape sequences and control
 * characters removed, line breaks turned into spaces, and characters that
 * would reorder or hide text (bidi overrides, zero-width characters, line and
 * paragraph separators, lone surrogates) shown as \u escapes.
 */
export function sanitizeLine(text: string): string {
  /* eslint-disable no-control-regex -- removing control characters is the point */
  return text
    .replace(/\u001b\[[0-9;?]*[ -/]*[@-~]/g, "")
    .replace(/[\r\n]+/g, " ")
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, "")
    .replace(INVISIBLE, escapeUnits);
  /* eslint-enable no-control-regex */
}

// Format characters (tag characters included), line and paragraph separators, unpaired surrogates.
const INVISIBLE = /[\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;

function escapeUnits(c: string): string {
  let escaped = "";
  for (let i = 0; i < c.length; i++)
    escaped += `\\u${c.charCodeAt(i).toString(16).padStart(4, "0")}`;
  return escaped;
}
