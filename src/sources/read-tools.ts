import type { JsonValue } from "../core/json-value.js";
import type { ServerSource } from "../core/server-source.js";
import { readFileTools } from "./file.js";

/** What reading a server needs from its surroundings. */
export interface ReadContext {
  /** The lock's directory: relative `path` and `cwd` resolve against it. */
  lockDir: string;
  /** The lock's name of the server being read, where there is one (for a line such as `contractpin login NAME`). */
  server?: string;
  /** Where `${VAR}` references are expanded from. */
  env: Readonly<Record<string, string | undefined>>;
  /** `--oauth-state-out FILE`: where a rotated refresh token is written (dotenv, mode 0600). */
  oauthStateOut?: string;
  /** Give up on the server after this long. */
  timeoutMs: number;
  /** Aborts the read (Ctrl-C, SIGTERM). */
  signal?: AbortSignal;
  /** The largest message (or dump file) accepted, in bytes (DEFAULT_MAX_MESSAGE_BYTES unless raised). */
  maxMessageBytes: number;
  /**
   * Receives one warning line about a server that was still read (for
   * example a stdout line that is not JSON). The text may hold server data:
   * the CLI sanitises it before it reaches a terminal.
   */
  warn: (message: string) => void;
  /**
   * Receives, for a live server, the bytes of each tools/list response in
   * page order, exactly as the server sent them and the strict parser
   * accepted them; undefined for a response that came inside a JSON batch
   * (`contractpin dump`).
   */
  onToolsListPage?: (bytes: Uint8Array | undefined) => void;
}

/**
 * The tools of a server, exactly as served, across all pages. File dumps are
 * read here; live transports are imported only when a lock names one, so a
 * file-only run never loads the MCP client library.
 */
export async function readServerTools(
  source: ServerSource,
  ctx: ReadContext,
): Promise<JsonValue[]> {
  switch (source.transport) {
    case "file":
      return readFileTools(source, ctx);
    case "stdio":
    case "http":
      return (await import("./live/read-live.js")).readLiveTools(source, ctx);
  }
}
