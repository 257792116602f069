import type { JsonValue } from "../core/json/json-value.js";
import type { ServerSource } from "../core/source/server-source.js";
import { readFileServer } from "./file.js";
import type { ReadContext, ServerRead } from "./read-context.js";

export type { Authorize, FetchLike, ReadContext, ServerRead } from "./read-context.js";

/**
 * The tools of a server, exactly as served, across all pages. File dumps are
 * read here; live transports are imported only when a lock names one, so a
 * file-only run never loads the MCP client library.
 */
export async function readServerTools(
  source: ServerSource,
  ctx: ReadContext,
): Promise<JsonValue[]> {
  const { surface: _ignored, ...toolsOnly } = ctx;
  return (await readServer(source, toolsOnly)).tools;
}

/**
 * A server's tools, and with `ctx.surface` its surface (SPEC.md 10.1), each
 * exactly as served across all pages. A file dump that holds only tools
 * (forms 1 to 3 of SPEC.md 5) gives no surface, asked or not.
 */
export async function readServer(source: ServerSource, ctx: ReadContext): Promise<ServerRead> {
  switch (source.transport) {
    case "file":
      return readFileServer(source, ctx);
    case "stdio":
    case "http":
      return (await import("./live/read-live.js")).readLiveServer(source, ctx);
  }
}
