import type { Span } from "../../core/json/json-spans.js";
import { TRANSPORT_KEYS, type GuardFields } from "./guard-fields.js";
import { tomlParser } from "../parsers.js";

/**
 * A Codex server entry laid out as TOML tables: `[mcp_servers.NAME]`, its
 * keys, and sub-tables `[mcp_servers.NAME.KEY]` right after it. An entry
 * written another way (an inline table, dotted keys) is not found, and wrap
 * leaves it alone.
 */
export interface TomlEntry {
  /** From the header's first character to the end of the entry's last key line. */
  span: Span;
  /** The header line as written, with its line break. */
  header: string;
  /** The entry's own keys (`key = value`, a value may span lines), as written. */
  keys: Array<{ name: string; text: string }>;
  /** Its sub-tables, each from its header to its last key line, as written. */
  tables: Array<{ name: string; text: string }>;
  eol: string;
  /** Whether the entry's last line ends with a line break. */
  endsWithEol: boolean;
}

const BARE = /^[A-Za-z0-9_-]+$/;

/** The segments of a dotted TOML key (bare, "basic" or 'literal'), or undefined. */
function keySegments(text: string): string[] | undefined {
  const segments: string[] = [];
  const part = /\s*(?:([A-Za-z0-9_-]+)|"((?:[^"\\]|\\.)*)"|'([^']*)')\s*(\.|$)/y;
  let i = 0;
  while (i < text.length) {
    part.lastIndex = i;
    const m = part.exec(text);
    if (m === null) return undefined;
    segments.push(m[1] ?? m[3] ?? (JSON.parse(`"${m[2]!}"`) as string));
    i = part.lastIndex;
    if (m[4] === "") break;
  }
  return segments;
}

/** A table header line's key segments, or undefined when the line is not one. */
function headerOf(line: string): string[] | undefined {
  const m = /^\s*\[(?!\[)([^\]]*)\]\s*(?:#.*)?$/.exec(line.replace(/\r?\n$/, ""));
  return m === null ? undefined : keySegments(m[1]!);
}

const isTrivia = (line: string) => /^\s*(?:#.*)?$/.test(line.replace(/\r?\n$/, ""));

function lines(text: string): Array<{ text: string; start: number }> {
  const out: Array<{ text: string; start: number }> = [];
  const re = /[^\n]*\n|[^\n]+$/g;
  for (let m = re.exec(text); m !== null && m[0] !== ""; m = re.exec(text)) {
    out.push({ text: m[0], start: m.index });
  }
  return out;
}

function parses(text: string): boolean {
  try {
    tomlParser().parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Finds `[mcp_servers.NAME]` and what belongs to it in a Codex config's text. */
export function tomlEntry(text: string, name: string): TomlEntry | undefined {
  const all = lines(text);
  const at = all.findIndex((l) => {
    const h = headerOf(l.text);
    return h?.length === 2 && h[0] === "mcp_servers" && h[1] === name;
  });
  if (at === -1) return undefined;
  const keys: TomlEntry["keys"] = [];
  const tables: TomlEntry["tables"] = [];
  let end = all[at]!.start + all[at]!.text.length;
  let table: { name: string; start: number } | undefined;
  const closeTable = () => {
    if (table !== undefined) tables.push({ name: table.name, text: text.slice(table.start, end) });
  };
  for (let i = at + 1; i < all.length; i++) {
    const line = all[i]!;
    if (isTrivia(line.text)) continue;
    const h = headerOf(line.text);
    if (h !== undefined || line.text.trimStart().startsWith("[[")) {
      if (h === undefined || h.length < 3 || h[0] !== "mcp_servers" || h[1] !== name) break;
      closeTable();
      table = { name: h[2]!, start: line.start };
      end = line.start + line.text.length;
      continue;
    }
    // A key's value may span lines: the statement is the shortest run that parses.
    let j = i;
    let statement = line.text;
    while (!parses(statement)) {
      if (++j >= all.length) return undefined;
      statement += all[j]!.text;
    }
    const key = keySegments(statement.slice(0, statement.indexOf("=")))?.[0];
    if (key === undefined) return undefined;
    if (table === undefined) keys.push({ name: key, text: statement });
    end = all[j]!.start + all[j]!.text.length;
    i = j;
  }
  closeTable();
  const start = all[at]!.start;
  return {
    span: [start, end],
    header: all[at]!.text,
    keys,
    tables,
    eol: text.includes("\r\n") ? "\r\n" : "\n",
    endsWithEol: text.slice(start, end).endsWith("\n"),
  };
}

/** A TOML basic string: JSON's escapes, which TOML shares, and DEL escaped as TOML requires. */
export function tomlString(value: string): string {
  return JSON.stringify(value).replace(/\u007f/g, "\\u007F");
}

const tomlKey = (key: string) => (BARE.test(key) ? key : tomlString(key));

/**
 * The text of the wrapped entry: its header as written, the guard's
 * `command`, `args` and `env` (an inline table), Codex's `env_vars` when the
 * guard needs variables from the environment, then every other key and
 * sub-table as written.
 */
export function renderTomlEntry(entry: TomlEntry, fields: GuardFields): string {
  const { eol } = entry;
  const env = fields.env.map(([k, v]) => `${tomlKey(k)} = ${tomlString(v)}`).join(", ");
  const out = [
    `command = ${tomlString(fields.command)}`,
    `args = [${fields.args.map(tomlString).join(", ")}]`,
    `env = { ${env} }`,
    ...(fields.envVars.length === 0
      ? []
      : [`env_vars = [${fields.envVars.map(tomlString).join(", ")}]`]),
  ].map((l) => l + eol);
  for (const key of entry.keys) if (!TRANSPORT_KEYS.has(key.name)) out.push(key.text);
  for (const table of entry.tables) {
    if (!TRANSPORT_KEYS.has(table.name)) out.push(eol, table.text);
  }
  let body = entry.header + out.join("");
  // A kept key or table from the end of the file may lack a line break; so must the entry.
  if (!body.endsWith("\n")) body += eol;
  return entry.endsWithEol ? body : body.replace(/\r?\n$/, "");
}
