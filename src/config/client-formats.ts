// The server lists of Zed and Continue, whose entries are shaped unlike the
// `mcpServers` objects of the other clients: each is brought to the common
// shape (command, args, env, cwd, url, headers, disabled) and read by
// readRawServer, so every rule of the import applies to them unchanged.
import { configInvalid } from "./config-error.js";
import { member, readRawServer, type ServerEntry } from "./raw-server.js";

type Entry = Record<string, unknown>;

function isObject(value: unknown): value is Entry {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function own(entry: Entry, key: string): unknown {
  return Object.hasOwn(entry, key) ? entry[key] : undefined;
}

/**
 * Zed's `context_servers` (settings.json): `{"command": "...", "args": [...],
 * "env": {...}}`, or an older `{"command": {"path": "...", "args": [...]}}`,
 * or `{"url": "...", "headers": {...}}`; `"enabled": false` turns one off. A
 * server an extension provides (`"settings"` and no command) is skipped.
 */
export function zedEntries(value: unknown, file: string): ServerEntry[] {
  const servers = member(value, "context_servers") ?? {};
  return Object.entries(servers).map(([name, entry]) => {
    const where = `${file}: context_servers.${name}`;
    const path = ["context_servers", name];
    let flat = entry;
    const command = isObject(entry) ? own(entry, "command") : undefined;
    if (isObject(entry) && isObject(command)) {
      flat = { ...entry, command: own(command, "path"), args: own(command, "args") };
      if (own(command, "env") !== undefined) (flat as Entry)["env"] = own(command, "env");
    }
    const raw = readRawServer(flat, where);
    if (raw.disabled) return { name, raw, path, skip: "disabled" };
    if (raw.command === undefined && raw.url === undefined && isObject(flat)) {
      if (own(flat, "settings") !== undefined || own(flat, "source") === "extension") {
        return {
          name,
          raw,
          path,
          skip: "a Zed extension provides it, and contractpin cannot tell how the extension launches it",
        };
      }
    }
    return { name, raw, path };
  });
}

/** Continue's `mcpServers` list, when the document has one. */
export function continueServers(value: unknown): unknown[] | undefined {
  if (!isObject(value)) return undefined;
  const list = own(value, "mcpServers");
  return Array.isArray(list) ? list : undefined;
}

// Continue's secret template: ${{ secrets.NAME }}, read from its .env files or its hub.
const SECRET = /\$\{\{\s*secrets\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/** `${{ secrets.NAME }}` becomes contractpin's `${NAME}`, in every string of an entry. */
function secretsAsReferences(value: unknown): unknown {
  if (typeof value === "string") return value.replace(SECRET, (_, name: string) => `\${${name}}`);
  if (Array.isArray(value)) return value.map(secretsAsReferences);
  if (isObject(value)) {
    const out: Entry = {};
    for (const [k, v] of Object.entries(value)) {
      Object.defineProperty(out, k, { value: secretsAsReferences(v), enumerable: true });
    }
    return out;
  }
  return value;
}

/**
 * Continue's YAML (`config.yaml`, `.continue/mcpServers/*.yaml`): a list under
 * `mcpServers` of `{name, type?, command, args, env, cwd}` or `{name, type?,
 * url, requestOptions: {headers}}`. `${{ secrets.NAME }}` is read as `${NAME}`
 * (set NAME when verifying); a block taken from the Continue hub (`uses:`) is
 * skipped, since its definition is not in the file.
 *
 * @throws ContractpinError CONFIG_INVALID for an item that is not an object or has no name.
 */
export function continueEntries(value: unknown, file: string): ServerEntry[] {
  return (continueServers(value) ?? []).map((item, i) => {
    const where = `${file}: mcpServers[${i}]`;
    const path = ["mcpServers", String(i)];
    if (!isObject(item)) throw configInvalid(`${where} must be an object`);
    const uses = own(item, "uses");
    const name = own(item, "name") ?? uses;
    if (typeof name !== "string") throw configInvalid(`${where}.name must be a string`);
    if (
      typeof uses === "string" &&
      own(item, "command") === undefined &&
      own(item, "url") === undefined
    ) {
      return {
        name,
        raw: readRawServer({}, where),
        path,
        skip: "it is a block from the Continue hub (uses:), whose definition is not in the file",
      };
    }
    const entry = secretsAsReferences(item) as Entry;
    const options = own(entry, "requestOptions");
    const flat: Entry = {};
    for (const key of ["type", "command", "args", "env", "cwd", "url"]) {
      if (own(entry, key) !== undefined) flat[key] = own(entry, key);
    }
    if (isObject(options) && own(options, "headers") !== undefined) {
      flat["headers"] = own(options, "headers");
    }
    return { name, raw: readRawServer(flat, where), path };
  });
}
