import type { ServerResponse } from "node:http";
import type { ReadContext } from "../../sources/read-tools.js";
import { ClientQueue, MAX_QUEUED } from "../wire/client-queue.js";
import { valueSpan } from "../../core/json/json-spans.js";
import { LockState } from "../policy/lock-state.js";
import { Relay, type OnDrift } from "../relay.js";
import type { Reporter } from "../reporter.js";
import { openUpstream, type OpenUpstream } from "./upstream.js";

/** What every session of one listening guard shares. */
export interface SessionSetup {
  server: string;
  lockPath: string;
  allowNew: boolean;
  onDrift: OnDrift;
  ctx: ReadContext;
  report: Reporter;
}

/** One POST that carried requests: answered once the last of them is. */
interface Exchange {
  res: ServerResponse;
  /** An event stream (written as answers come), or one JSON body at the end. */
  sse: boolean;
  batch: boolean;
  waiting: Set<string>;
  parts: string[];
}

/**
 * One client session of the guard's HTTP face (Streamable HTTP): its own
 * Relay and its own connection to the server (a stdio server started for
 * it, or an HTTP session), ended with the session. Each answer the relay
 * sends goes back on the POST that carried its request; the server's own
 * messages (requests, notifications) go on the client's GET stream, or
 * else on an open POST stream, or wait for a stream to open.
 */
export class HttpSession {
  private upstream: OpenUpstream | undefined;
  private failed = false;
  private closed = false;
  private readonly relay: Relay;
  private readonly lock: LockState;
  private readonly exchanges = new Map<string, Exchange>();
  private readonly open = new Set<Exchange>();
  private stream: ServerResponse | undefined;
  private readonly queue: ClientQueue;

  private constructor(
    readonly id: string,
    private readonly setup: SessionSetup,
  ) {
    this.lock = new LockState(setup.lockPath, setup.server);
    const bound = setup.ctx.maxMessageBytes;
    this.queue = new ClientQueue(bound, () =>
      setup.report.event({
        event: "dropped",
        server: setup.server,
        from: "server",
        what:
          "a message for the client, which has no stream open (the oldest past " +
          `${MAX_QUEUED} messages or ${bound / 1024 / 1024} MiB waiting)`,
      }),
    );
    this.relay = new Relay(
      {
        sendRaw: (bytes) =>
          this.upstream === undefined
            ? Promise.reject(new Error("the server is not running"))
            : this.upstream.sendRaw(bytes),
      },
      {
        server: setup.server,
        lock: this.lock,
        allowNew: setup.allowNew,
        onDrift: setup.onDrift,
        timeoutMs: setup.ctx.timeoutMs,
        toClient: (text) => this.toClient(typeof text === "string" ? text : utf8(text)),
        onEvent: setup.report.event,
        warn: setup.report.say,
        redact: setup.report.redact,
      },
    );
  }

  /** A session with its server started (or failed, then every request gets the error). */
  static async start(id: string, setup: SessionSetup): Promise<HttpSession> {
    const session = new HttpSession(id, setup);
    session.upstream = await openUpstream(session.lock, {
      server: setup.server,
      ctx: setup.ctx,
      say: setup.report.say,
      tail: setup.report.tail,
      setRedact: setup.report.setRedact,
      message: (bytes) => session.relay.fromServer(bytes),
      fail: (message) => {
        setup.report.say(message);
        session.failed = true;
        session.relay.fail(setup.report.shown(message));
      },
      ended: () => undefined,
    });
    return session;
  }

  /** True while the client holds a connection of this session open and its server works. */
  busy(): boolean {
    return !this.failed && !this.closed && (this.stream !== undefined || this.open.size > 0);
  }

  /**
   * Relays one POST body; `requests` are the keys of the ids of the requests
   * in it (answered on `res`); with none, the POST is answered 202 at once.
   */
  post(body: Uint8Array, requests: string[], batch: boolean, res: ServerResponse, sse: boolean) {
    if (requests.length === 0) {
      res.writeHead(202, this.headers()).end();
    } else {
      const ex: Exchange = { res, sse, batch, waiting: new Set(requests), parts: [] };
      for (const key of requests) this.exchanges.set(key, ex);
      this.open.add(ex);
      if (sse) res.writeHead(200, this.headers({ "content-type": "text/event-stream" }));
      res.on("close", () => this.forget(ex));
    }
    this.relay.fromClient(body);
  }

  /** Opens the client's GET stream; false when one is open already. */
  listen(res: ServerResponse): boolean {
    if (this.stream !== undefined) return false;
    this.stream = res;
    res.writeHead(200, this.headers({ "content-type": "text/event-stream" }));
    res.flushHeaders();
    res.on("close", () => {
      if (this.stream === res) this.stream = undefined;
    });
    for (const text of this.queue.take()) writeEvent(res, text);
    return true;
  }

  /** Ends the session: its streams, then its server (and the server's process group). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Every request still open is answered with this error first.
    this.relay.fail("the session ended");
    await this.relay.drained();
    for (const ex of this.open) ex.res.end();
    this.stream?.end();
    await this.upstream?.close();
  }

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    return { "mcp-session-id": this.id, "cache-control": "no-cache", ...extra };
  }

  private toClient(text: string): void {
    const key = responseKey(text);
    const ex = key === undefined ? undefined : this.exchanges.get(key);
    if (key === undefined || ex === undefined) return this.push(text);
    this.exchanges.delete(key);
    ex.waiting.delete(key);
    if (ex.sse) writeEvent(ex.res, text);
    else ex.parts.push(text);
    if (ex.waiting.size > 0) return;
    this.open.delete(ex);
    if (ex.sse) ex.res.end();
    else {
      const body = ex.batch ? `[${ex.parts.join(",")}]` : ex.parts[0]!;
      ex.res.writeHead(200, this.headers({ "content-type": "application/json" })).end(body);
    }
  }

  /** A message that answers no open POST: the server's own, or a late answer. */
  private push(text: string): void {
    const target = this.stream ?? [...this.open].find((ex) => ex.sse)?.res;
    if (target !== undefined) return writeEvent(target, text);
    this.queue.push(text);
  }

  /** A POST whose connection closed: its answers, should they come, go elsewhere. */
  private forget(ex: Exchange): void {
    if (!this.open.delete(ex)) return;
    for (const key of ex.waiting) if (this.exchanges.get(key) === ex) this.exchanges.delete(key);
  }
}

/**
 * The key of the id of a response (a message with an id and no method), as
 * the HTTP face keys the ids of requests; undefined for anything else. The
 * text has passed the strict parser (or was written by the guard).
 */
export function responseKey(text: string): string | undefined {
  if (valueSpan(text, ["method"]) !== undefined) return undefined;
  const span = valueSpan(text, ["id"]);
  if (span === undefined) return undefined;
  return idKey(JSON.parse(text.slice(span[0], span[1])));
}

/** The key of a request id (a string or a number), or undefined for any other value. */
export function idKey(id: unknown): string | undefined {
  return typeof id === "string" || typeof id === "number" ? JSON.stringify(id) : undefined;
}

/** One SSE event holding one message (a line break in it, whitespace, becomes a new data line). */
function writeEvent(res: ServerResponse, text: string): void {
  res.write(`event: message\ndata: ${text.split(/\r\n|\r|\n/).join("\ndata: ")}\n\n`);
}

function utf8(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
}
