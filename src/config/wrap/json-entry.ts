import { memberSpans, valueSpan, type Span } from "../../core/json/json-spans.js";
import { stripJsonc } from "../jsonc.js";
import { TRANSPORT_KEYS, type GuardFields } from "./guard-fields.js";

/** Where a server entry sits in a JSON (or JSONC) config, and what it looks like there. */
export interface JsonEntry {
  /** The entry's object, `{` to `}`, in the file's text. */
  span: Span;
  /** Each member as written (`"key": value`), in order. */
  members: Array<{ name: string; text: string }>;
  /** Whether the entry had a `type` (or `transport`) key: the wrapped one then says "stdio". */
  typeKey?: string;
  multiline: boolean;
  /** The indentation of the entry's members, and of its closing brace. */
  indent: string;
  closeIndent: string;
  eol: string;
}

function lineIndent(text: string, at: number): string {
  const start = text.lastIndexOf("\n", at - 1) + 1;
  return /^[ \t]*/.exec(text.slice(start))![0];
}

/**
 * Finds the entry at `path` (member names from the root) in a config's text.
 * Comments and trailing commas are blanked out first (offsets kept), so the
 * spans point into the text as written.
 *
 * @returns undefined when the text does not hold the entry as an object.
 */
export function jsonEntry(text: string, path: readonly string[]): JsonEntry | undefined {
  const plain = stripJsonc(text, "utf16");
  const span = valueSpan(plain, path);
  const spans = span === undefined ? undefined : memberSpans(plain, span);
  if (span === undefined || spans === undefined) return undefined;
  const members = spans.map((m) => ({ name: m.name, text: text.slice(m.start, m.value[1]) }));
  const multiline = /[\r\n]/.test(text.slice(span[0], span[1]));
  const closeIndent = lineIndent(text, span[1] - 1);
  const first = spans[0];
  const firstIndent = first === undefined ? "" : lineIndent(text, first.start);
  const onOwnLine = first !== undefined && /^[ \t]*$/.test(textBefore(text, first.start));
  const typeKey = spans.find((m) => m.name === "type" || m.name === "transport")?.name;
  return {
    span,
    members,
    ...(typeKey === undefined ? {} : { typeKey }),
    multiline,
    indent: onOwnLine && firstIndent.length > closeIndent.length ? firstIndent : `${closeIndent}  `,
    closeIndent,
    eol: text.includes("\r\n") ? "\r\n" : "\n",
  };
}

function textBefore(text: string, at: number): string {
  return text.slice(text.lastIndexOf("\n", at - 1) + 1, at);
}

const str = (value: string): string => JSON.stringify(value);

/**
 * The text of the wrapped entry: the guard's members where the first
 * transport key was, every other member copied as written. Laid out like
 * the entry it replaces (one line, or one member a line at its indentation).
 */
export function renderJsonEntry(entry: JsonEntry, fields: GuardFields): string {
  const unit = entry.indent.slice(entry.closeIndent.length) || "  ";
  const args = `[${fields.args.map(str).join(", ")}]`;
  const envMembers = fields.env.map(([k, v]) => `${str(k)}: ${str(v)}`);
  const env = entry.multiline
    ? `{${entry.eol}${envMembers.map((m) => entry.indent + unit + m).join(`,${entry.eol}`)}${entry.eol}${entry.indent}}`
    : `{ ${envMembers.join(", ")} }`;
  const guard = [
    ...(entry.typeKey === undefined ? [] : [`${str(entry.typeKey)}: "stdio"`]),
    `"command": ${str(fields.command)}`,
    `"args": ${args}`,
    `"env": ${env}`,
  ];
  const members: string[] = [];
  let placed = false;
  for (const member of entry.members) {
    if (!TRANSPORT_KEYS.has(member.name)) members.push(member.text);
    else if (!placed) {
      members.push(...guard);
      placed = true;
    }
  }
  if (!placed) members.unshift(...guard);
  return entry.multiline
    ? `{${entry.eol}${members.map((m) => entry.indent + m).join(`,${entry.eol}`)}${entry.eol}${entry.closeIndent}}`
    : `{ ${members.join(", ")} }`;
}
