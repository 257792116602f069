import type { JsonValue } from "./json-value.js";

/**
 * Pretty-prints a small JSON value for people and for git diffs: keys sorted
 * by UTF-16 code units, two-space indent, LF line ends. JSON.stringify cannot
 * do this, since it lists integer-like keys first whatever their order.
 * Recursive: meant for contractpin's own shallow documents (locks, reports),
 * not for arbitrary input.
 */
export function prettyJson(value: JsonValue | object, indent = ""): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  const inner = indent + "  ";
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    return `[\n${value.map((v: JsonValue) => inner + prettyJson(v, inner)).join(",\n")}\n${indent}]`;
  }
  const record = value as Record<string, JsonValue>;
  const keys = Object.keys(record)
    .filter((k) => record[k] !== undefined)
    .sort();
  if (keys.length === 0) return "{}";
  const members = keys.map((k) => `${inner}${JSON.stringify(k)}: ${prettyJson(record[k]!, inner)}`);
  return `{\n${members.join(",\n")}\n${indent}}`;
}

// What visibleText shows as <U+XXXX> (src/core/visible-text.ts), layout line
// feeds aside: inside JSON text they occur only within strings, where
// JSON.stringify has escaped every C0 control already.
const HIDDEN =
  /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}\p{Noncharacter_Code_Point}]/gu;

/**
 * JSON text with every character a reader cannot see or a terminal would act
 * on (C1 controls, bidirectional and other format characters, line and
 * paragraph separators, lone surrogates, noncharacters) written as a `\u`
 * escape, so that the text holds none raw; the line feeds of the layout are
 * kept. Parsing it gives back exactly the same value.
 */
export function escapeHiddenJson(json: string): string {
  return json.replace(HIDDEN, (ch) => {
    if (ch === "\n") return ch;
    let out = "";
    for (let i = 0; i < ch.length; i++)
      out += `\\u${ch.charCodeAt(i).toString(16).padStart(4, "0")}`;
    return out;
  });
}
