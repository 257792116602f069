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
