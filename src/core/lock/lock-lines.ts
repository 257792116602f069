/**
 * Where a server's and a tool's entries start in a lock's text, so that a
 * report (SARIF, CI annotations) can point a reviewer at the line to look
 * at. Pure: it reads the text it is given.
 *
 * A small JSON scanner rather than a search for `"NAME": {`: it follows the
 * nesting, so a name that also appears as a tool name, as another server's
 * key or inside a string is never mistaken for the entry, and it works
 * for any layout (the writer's two-space indent, a hand-formatted file).
 * Text it cannot follow (not JSON, or not a lock's shape) gives line 1.
 */

/** The 1-based line of each server's and tool's key in a lock. */
export interface LockLines {
  /** The line of `"NAME":` under `servers`; 1 when not found. */
  server(name: string): number;
  /** The line of `"TOOL":` under the server's `tools`; the server's line when not found. */
  tool(server: string, tool: string): number;
}

interface Frame {
  /** The key path from the root to this object; undefined for an array, or an object not followed. */
  path: string[] | undefined;
}

/**
 * Scans `text` (a lock) once and returns the lines of its server and tool
 * keys. Lines are counted as SARIF counts them: LF, CR LF and a lone CR each
 * end one.
 */
export function lockLines(text: string): LockLines {
  const servers = new Map<string, { line: number; tools: Map<string, number> }>();
  try {
    scan(text, (path, line) => {
      // path: ["servers", NAME] or ["servers", NAME, "tools", TOOL]
      if (path[0] !== "servers") return;
      if (path.length === 2) servers.set(path[1]!, { line, tools: new Map() });
      else if (path.length === 4 && path[2] === "tools")
        servers.get(path[1]!)?.tools.set(path[3]!, line);
    });
  } catch {
    // Not JSON after all: what was found before the fault is still right.
  }
  return {
    server: (name) => servers.get(name)?.line ?? 1,
    tool: (server, tool) => {
      const entry = servers.get(server);
      return entry?.tools.get(tool) ?? entry?.line ?? 1;
    },
  };
}

/**
 * Walks the JSON text, calling `onKey` with the key path of every member
 * key at depth 1 to 4 and the line it starts on. Throws on text that is not
 * JSON-shaped enough to follow.
 */
function scan(text: string, onKey: (path: string[], line: number) => void): void {
  const stack: Frame[] = [];
  let line = 1;
  // Whether the next string in the current object is a key.
  let expectKey = false;
  // The path of the last key read: the path of an object that opens as its value.
  let lastKey: string[] = [];
  let i = 0;
  const n = text.length;
  while (i < n) {
    const ch = text.charCodeAt(i);
    if (ch === 0x0a) {
      line++;
      i++;
    } else if (ch === 0x0d) {
      line++;
      i += text.charCodeAt(i + 1) === 0x0a ? 2 : 1;
    } else if (ch === 0x22 /* " */) {
      const end = stringEnd(text, i);
      const top = stack[stack.length - 1];
      if (expectKey && top?.path !== undefined) {
        const key = JSON.parse(text.slice(i, end)) as string;
        const path = [...top.path, key];
        if (path.length <= 4) onKey(path, line);
        lastKey = path;
        expectKey = false;
      }
      i = end;
    } else if (ch === 0x7b /* { */) {
      // An object opened as a member's value has that member's path; one in an array has none.
      const top = stack[stack.length - 1];
      const path = stack.length === 0 ? [] : top?.path !== undefined ? lastKey : undefined;
      stack.push({ path: path !== undefined && path.length < 4 ? path : undefined });
      expectKey = true;
      i++;
    } else if (ch === 0x5b /* [ */) {
      stack.push({ path: undefined });
      i++;
    } else if (ch === 0x7d /* } */ || ch === 0x5d /* ] */) {
      stack.pop();
      i++;
    } else if (ch === 0x2c /* , */) {
      expectKey = stack[stack.length - 1]?.path !== undefined;
      i++;
    } else {
      i++;
    }
  }
}

/** The index just past the string literal that starts at `start`. */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  for (;;) {
    const q = text.indexOf('"', i);
    if (q === -1) throw new Error("unterminated string");
    // The quote is escaped when an odd number of backslashes precede it.
    let backslashes = 0;
    for (let j = q - 1; j > start && text.charCodeAt(j) === 0x5c; j--) backslashes++;
    if (backslashes % 2 === 0) return q + 1;
    i = q + 1;
  }
}
