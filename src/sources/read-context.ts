/**
 * What a read of a server is given and gives, in a leaf of its own: the
 * dispatcher (read-tools.ts) and every transport use these shapes.
 */
import type { JsonValue } from "../core/json/json-value.js";
import type { HttpSource } from "../core/source/server-source.js";
import type { ServedSurface } from "../core/surface/surface.js";

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
  /**
   * Read the server's surface besides its tools (SPEC.md 10): its
   * instructions and every list it advertises; resources only with
   * `resources`. Absent: tools only, as a version 1 pin reads.
   */
  surface?: { resources: boolean };
  /**
   * Receives, for a live server read with `surface`, the bytes of the
   * initialize (or server/discover) response and of each list page of every
   * method, as {@link onToolsListPage} does for tools/list (`contractpin dump`).
   */
  onRawResponse?: (method: string, bytes: Uint8Array | undefined) => void;
  /**
   * Loads how the requests to an http server are authorized (its `auth`
   * member, src/auth): given the server, its expanded URL and the fetch every
   * request goes through, the fetch to use instead. Passed in by the caller,
   * so that sources/ does not reach up into auth/, and loaded only when an
   * http server is read. Without it, an http server with an `auth` member
   * fails: nothing is sent to it without its credential.
   */
  authorizer?: () => Promise<Authorize>;
}

/** See {@link ReadContext.authorizer}. */
export type Authorize = (
  source: HttpSource,
  url: URL,
  ctx: ReadContext,
  base: FetchLike,
) => FetchLike;

/** The fetch of the MCP client's HTTP transports. */
export type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** What a read of a server gives: its tools, and its surface when asked and available. */
export interface ServerRead {
  tools: JsonValue[];
  /** Absent when not asked, or for a file dump that holds tools only. */
  surface?: ServedSurface;
  /**
   * Read without `surface`: true when the server serves more than tools
   * (instructions, or a prompts or resources capability), so that a
   * tools-only pin can say how to pin the rest.
   */
  servesMore?: boolean;
}
