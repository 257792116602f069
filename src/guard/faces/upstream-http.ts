import type { FetchLike } from "@modelcontextprotocol/client";
import type { JsonValue } from "../../core/json/json-value.js";
import { standardHeaders } from "../wire/era.js";
import type { Upstream } from "../relay.js";
import { readAtMost, readMessageEvents } from "../../io/read-body.js";
import { sameOriginFetch } from "../../sources/live/same-origin-fetch.js";

/** What the HTTP upstream hands on: each message's raw text, and the failures of the connection. */
export interface HttpSink {
  /** One message (or batch) from the server, as the bytes it sent. */
  message(bytes: Uint8Array | string): void;
  /** A message over the size limit: the connection can no longer be trusted. */
  tooLarge(): void;
  /** A problem that ends nothing (a server stream that could not be opened). */
  warn(message: string): void;
}

// The GET stream (the server's own messages, list_changed among them) is
// opened again this many times when it ends, then given up with a warning.
const MAX_STREAM_RETRIES = 5;

/**
 * A Streamable HTTP connection to a server, relaying raw bytes: each client
 * message is POSTed as received; each message the server sends (a JSON body,
 * or each SSE event's data, on POST responses and on the GET stream) goes to
 * the sink as its exact text, for the guard's strict parse. The session id
 * and protocol version headers are kept as the MCP transport keeps them.
 * A message carrying a 2026-07-28 envelope is POSTed with the standard
 * headers derived from its own body (`MCP-Protocol-Version`, `Mcp-Method`,
 * `Mcp-Name`), as the official client sends them, so they always agree.
 */
export class HttpUpstream implements Upstream {
  private sessionId: string | undefined;
  private protocolVersion: string | undefined;
  private readonly stop = new AbortController();
  private streamOpen = false;

  constructor(
    private readonly url: URL,
    private readonly headers: Record<string, string>,
    private readonly sink: HttpSink,
    private readonly maxMessageBytes: number,
    // The lock's headers (expanded secrets) and any access token go to the
    // pinned origin only, redirects included.
    private readonly fetch: FetchLike = sameOriginFetch(),
  ) {}

  /** The headers of one request; `fromBody` (the message's own standard headers) win over the rest. */
  private requestHeaders(
    extra: Record<string, string>,
    fromBody: Record<string, string> = {},
  ): Headers {
    const h = new Headers(this.headers);
    for (const [k, v] of Object.entries(extra)) h.set(k, v);
    if (this.sessionId !== undefined) h.set("mcp-session-id", this.sessionId);
    if (this.protocolVersion !== undefined) h.set("mcp-protocol-version", this.protocolVersion);
    for (const [k, v] of Object.entries(fromBody)) h.set(k, v);
    return h;
  }

  async sendRaw(bytes: Uint8Array): Promise<void> {
    let sent: { method?: unknown; id?: unknown } = {};
    try {
      sent = JSON.parse(Buffer.from(bytes).toString("utf8")) as typeof sent; // the client's own message
    } catch {
      // a batch or anything else: nothing to learn from it
    }
    const res = await this.fetch(this.url, {
      method: "POST",
      headers: this.requestHeaders(
        { "content-type": "application/json", accept: "application/json, text/event-stream" },
        standardHeaders(sent as JsonValue),
      ),
      body: bytes,
      signal: this.stop.signal,
    });
    const session = res.headers.get("mcp-session-id");
    if (session !== null) this.sessionId = session;
    if (!res.ok) {
      await res.body?.cancel().catch(() => undefined);
      throw new Error(
        `the server answered HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ""}`,
      );
    }
    const initialize = sent.method === "initialize" ? sent.id : undefined;
    const onMessage = (text: Uint8Array | string) => {
      if (initialize !== undefined) this.learnVersion(text, initialize);
      this.sink.message(text);
    };
    if (sent.method === "notifications/initialized") this.openStream();
    await this.readBody(res, onMessage);
  }

  private learnVersion(text: Uint8Array | string, id: unknown): void {
    try {
      const m = JSON.parse(
        typeof text === "string" ? text : Buffer.from(text).toString("utf8"),
      ) as {
        id?: unknown;
        result?: { protocolVersion?: unknown };
      };
      if (m.id === id && typeof m.result?.protocolVersion === "string")
        this.protocolVersion = m.result.protocolVersion;
    } catch {
      // the guard's strict parse reports it
    }
  }

  /** Reads a response: a JSON body whole, an event stream in the background. */
  private async readBody(res: Response, onMessage: (text: Uint8Array | string) => void) {
    if (res.body === null || res.status === 202) return;
    const type = (res.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
    if (type === "application/json") {
      const bytes = await readAtMost(res.body, this.maxMessageBytes);
      if (bytes === undefined) return this.sink.tooLarge();
      if (bytes.some((b) => b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09)) onMessage(bytes);
      return;
    }
    if (type === "text/event-stream") {
      void this.readEvents(res.body, onMessage);
      return;
    }
    await res.body.cancel().catch(() => undefined);
  }

  /** Reads an event stream's messages; returns the last event id (none after an event over the bound). */
  private async readEvents(
    body: ReadableStream<Uint8Array>,
    onMessage: (text: string) => void,
  ): Promise<string | undefined> {
    const read = await readMessageEvents(body, this.maxMessageBytes, {
      message: onMessage,
      tooLarge: () => this.sink.tooLarge(),
    });
    if (read.tooLarge) return undefined;
    const err = read.error as Error | undefined;
    if (err !== undefined && err?.name !== "AbortError")
      this.sink.warn(`the server's event stream failed: ${err.message}`);
    return read.lastId;
  }

  /** The GET stream of the server's own messages; none when the server offers none (405). */
  private openStream(): void {
    if (this.streamOpen) return;
    this.streamOpen = true;
    void (async () => {
      let lastId: string | undefined;
      for (let attempt = 0; attempt <= MAX_STREAM_RETRIES && !this.stop.signal.aborted; attempt++) {
        try {
          const res = await this.fetch(this.url, {
            method: "GET",
            headers: this.requestHeaders({
              accept: "text/event-stream",
              ...(lastId === undefined ? {} : { "last-event-id": lastId }),
            }),
            signal: this.stop.signal,
          });
          if (res.status === 405) {
            await res.body?.cancel().catch(() => undefined);
            return;
          }
          if (!res.ok || res.body === null) {
            await res.body?.cancel().catch(() => undefined);
            this.sink.warn(`the server refused its event stream: HTTP ${res.status}`);
            return;
          }
          lastId = (await this.readEvents(res.body, (text) => this.sink.message(text))) ?? lastId;
        } catch (err) {
          if (this.stop.signal.aborted) return;
          this.sink.warn(
            `the server's event stream could not be opened: ${(err as Error).message}`,
          );
        }
        await new Promise((r) => setTimeout(r, 500 * (attempt + 1)).unref());
      }
      if (!this.stop.signal.aborted)
        this.sink.warn("the server's event stream ended; its notifications are no longer heard");
    })();
  }

  /** Ends the session (DELETE, as the MCP transport's terminateSession) and every open request. */
  async close(): Promise<void> {
    const session = this.sessionId;
    this.stop.abort();
    if (session === undefined) return;
    const h = new Headers(this.headers);
    h.set("mcp-session-id", session);
    if (this.protocolVersion !== undefined) h.set("mcp-protocol-version", this.protocolVersion);
    await this.fetch(this.url, {
      method: "DELETE",
      headers: h,
      signal: AbortSignal.timeout(1000),
    })
      .then((r) => r.body?.cancel())
      .catch(() => undefined);
  }
}
