import { configInvalid } from "./config-error.js";

/**
 * One server entry of a client config, with each client's key spelled one
 * way. The clients' keys do not clash, so one reader serves every format:
 * `httpUrl` (Gemini CLI) and `serverUrl` (Windsurf) are URLs like `url`;
 * `http_headers`, `env_http_headers` and `bearer_token_env_var` are Codex's.
 */
export interface RawServer {
  /** `type`, `transport` or `transportType` (Cline): "stdio", "http", "sse", ... as the client spells it. */
  type?: string;
  command?: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  url?: string;
  /** Literal header values and templates, as written. */
  headers: Record<string, string>;
  /** Codex: header name → the variable that holds its value. */
  envHeaders: Record<string, string>;
  /** Codex: the variable that holds a bearer token. */
  bearerTokenEnvVar?: string;
  /** VS Code, Cursor: a dotenv file the client reads; contractpin does not. */
  envFile?: string;
  /** `disabled: true` or `enabled: false`. */
  disabled: boolean;
  /** Env entries set to null (VS Code: unset the variable), which a lock cannot express. */
  nullEnv: string[];
}

type Entry = Record<string, unknown>;

function isObject(value: unknown): value is Entry {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function own(entry: Entry, key: string): unknown {
  return Object.hasOwn(entry, key) ? entry[key] : undefined;
}

function optionalString(entry: Entry, key: string, where: string): string | undefined {
  const value = own(entry, key);
  if (value === undefined) return undefined;
  if (typeof value !== "string") throw configInvalid(`${where}.${key} must be a string`);
  return value;
}

function stringArray(entry: Entry, key: string, where: string): string[] {
  const value = own(entry, key);
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((v) => typeof v === "string")) {
    throw configInvalid(`${where}.${key} must be an array of strings`);
  }
  return value;
}

/** A string map; numbers and booleans are written as the clients pass them, as text. */
function stringMap(
  entry: Entry,
  key: string,
  where: string,
  nulls?: string[],
): Record<string, string> {
  const value = own(entry, key);
  const map: Record<string, string> = Object.create(null) as Record<string, string>;
  if (value === undefined) return map;
  if (!isObject(value)) throw configInvalid(`${where}.${key} must be an object of strings`);
  for (const [name, v] of Object.entries(value)) {
    if (typeof v === "string") map[name] = v;
    else if (typeof v === "number" || typeof v === "boolean") map[name] = String(v);
    else if (v === null && nulls !== undefined) nulls.push(name);
    else throw configInvalid(`${where}.${key}.${name} must be a string`);
  }
  return map;
}

function flag(entry: Entry, key: string, where: string): boolean | undefined {
  const value = own(entry, key);
  if (value === undefined) return undefined;
  if (typeof value !== "boolean") throw configInvalid(`${where}.${key} must be true or false`);
  return value;
}

/**
 * Reads one server entry, checking the type of every key it uses.
 *
 * @param where the entry's place for messages, e.g. `.mcp.json: mcpServers.github`.
 * @throws ContractpinError CONFIG_INVALID when the entry is not an object or a key has the wrong type.
 */
export function readRawServer(entry: unknown, where: string): RawServer {
  if (!isObject(entry)) throw configInvalid(`${where} must be an object`);
  const nullEnv: string[] = [];
  // Gemini CLI: httpUrl is Streamable HTTP and wins over url (SSE); Windsurf says serverUrl.
  const url =
    optionalString(entry, "httpUrl", where) ??
    optionalString(entry, "serverUrl", where) ??
    optionalString(entry, "url", where);
  return {
    // Cline still reads a legacy transportType ("stdio", "sse", "http").
    type:
      optionalString(entry, "type", where) ??
      optionalString(entry, "transport", where) ??
      optionalString(entry, "transportType", where),
    command: optionalString(entry, "command", where),
    args: stringArray(entry, "args", where),
    env: stringMap(entry, "env", where, nullEnv),
    cwd: optionalString(entry, "cwd", where),
    url,
    headers: {
      ...stringMap(entry, "headers", where),
      ...stringMap(entry, "http_headers", where),
    },
    envHeaders: stringMap(entry, "env_http_headers", where),
    bearerTokenEnvVar: optionalString(entry, "bearer_token_env_var", where),
    envFile: optionalString(entry, "envFile", where),
    disabled: flag(entry, "disabled", where) === true || flag(entry, "enabled", where) === false,
    nullEnv,
  };
}

/** The object at `value[key]` when there is one, for walking a config's top level. */
export function member(value: unknown, key: string): Entry | undefined {
  if (!isObject(value)) return undefined;
  const m = own(value, key);
  return isObject(m) ? m : undefined;
}

/** The strings of an array member (`disabledMcpjsonServers`, Gemini's `mcp.excluded`). */
export function stringList(value: Entry | undefined, key: string): string[] | undefined {
  const list = value === undefined ? undefined : own(value, key);
  return Array.isArray(list) ? list.filter((v): v is string => typeof v === "string") : undefined;
}

/** One server entry of a config, or the reason it is left out. */
export interface ServerEntry {
  name: string;
  raw: RawServer;
  /** The member names from the document's root to the entry: `["mcpServers", name]`, ... */
  path: string[];
  /** Why the server is not imported ("disabled", ...); undefined when it is. */
  skip?: string;
}
