/**
 * JSON with comments (JSONC), as VS Code and some other clients write their
 * MCP configs: `//` and `/* *\/` comments and trailing commas. Rather than a
 * second, lenient parser, the extras are blanked out and the result goes
 * through the strict parser, which still rejects duplicate keys, lone
 * surrogates and the rest.
 */

/**
 * Blanks out comments and trailing commas, outside string literals, so that
 * the text is plain JSON. Every removed character becomes as many spaces as it
 * has UTF-8 bytes, and line breaks inside comments are kept, so byte offsets
 * and line numbers in a later parse error still point into the original file.
 * An unterminated block comment is left as it is, for the parser to report
 * where it starts.
 *
 * @param units "utf8" (default): a removed character becomes one space per
 *   UTF-8 byte (positions in parse errors); "utf16": one space per UTF-16
 *   code unit, so that offsets into the result are offsets into `text`
 *   (for editing the original text where the result has a value).
 */
export function stripJsonc(text: string, units: "utf8" | "utf16" = "utf8"): string {
  return stripTrailingCommas(stripComments(text, units));
}

function blank(text: string, units: "utf8" | "utf16"): string {
  let out = "";
  for (const ch of text) {
    const width = units === "utf16" ? ch.length : utf8Length(ch.codePointAt(0)!);
    out += ch === "\n" || ch === "\r" ? ch : " ".repeat(width);
  }
  return out;
}

function utf8Length(codePoint: number): number {
  if (codePoint < 0x80) return 1;
  if (codePoint < 0x800) return 2;
  return codePoint < 0x10000 ? 3 : 4;
}

/** The index just past the string literal that opens at `start`. */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length) {
    const c = text[i];
    if (c === "\\") i += 2;
    else if (c === '"') return i + 1;
    else i++;
  }
  return text.length;
}

function stripComments(text: string, units: "utf8" | "utf16"): string {
  let out = "";
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      const end = stringEnd(text, i);
      out += text.slice(i, end);
      i = end;
    } else if (c === "/" && text[i + 1] === "/") {
      let end = i;
      while (end < text.length && text[end] !== "\n" && text[end] !== "\r") end++;
      out += blank(text.slice(i, end), units);
      i = end;
    } else if (c === "/" && text[i + 1] === "*") {
      const close = text.indexOf("*/", i + 2);
      if (close < 0) {
        out += text.slice(i);
        break;
      }
      out += blank(text.slice(i, close + 2), units);
      i = close + 2;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

// Runs after stripComments, so only whitespace can stand between a trailing comma and its bracket.
function stripTrailingCommas(text: string): string {
  let out = "";
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      const end = stringEnd(text, i);
      out += text.slice(i, end);
      i = end;
      continue;
    }
    if (c === ",") {
      let j = i + 1;
      while (j < text.length && /[ \t\n\r]/.test(text[j]!)) j++;
      if (text[j] === "}" || text[j] === "]") {
        out += " ";
        i++;
        continue;
      }
    }
    out += c;
    i++;
  }
  return out;
}
