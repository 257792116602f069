import { ContractpinError, isContractpinError } from "../core/errors.js";
import { getMember, isJsonObject, type JsonObject, type JsonValue } from "../core/json-value.js";
import type { PinnedServer } from "../core/lock.js";
import { parseJson } from "../core/strict-json.js";
import { pageOf } from "../core/tools-list.js";
import type { Digest } from "../core/digest.js";
import { envelopeOf, subscriptionOf } from "./era.js";
import { elementSpans, valueSpan, type Span } from "./json-spans.js";
import type { LockState } from "./lock-state.js";
import { checkTools, type WithheldTool } from "./policy.js";
import { advertiseListChanged, spliceTools } from "./rewrite.js";

/** More pages than any real server serves: a longer list is a loop. */
const MAX_PAGES = 1000;

/** What the guard does when a list holds a tool it withholds. */
export type OnDrift = "withhold" | "block";

/** Where a message to the server goes: the raw bytes of one message, without a newline. */
export interface Upstream {
  sendRaw(bytes: Uint8Array): Promise<void>;
}

/** One event the guard reports: a tool kept from the client, or a call it answered itself. */
export interface GuardEvent {
  event: "withheld" | "refused";
  server: string;
  tool: string;
  reason: WithheldTool["reason"] | "unlisted";
  pinned?: Digest;
  live?: Digest;
}

/** How a session is set up. */
export interface RelayOptions {
  server: string;
  lock: LockState;
  allowNew: boolean;
  onDrift: OnDrift;
  /** How long the guard waits for the server to answer one of its own tools/list requests. */
  timeoutMs: number;
  /** Writes one message to the client (a newline is added by the caller). */
  toClient: (bytes: Uint8Array | string) => void;
  /** Reports one event (a stderr line, a JSON log line). */
  onEvent: (event: GuardEvent) => void;
  /** Reports a problem in one line (stderr). */
  warn: (message: string) => void;
  /** Hides expanded `${VAR}` values in what the client is told (guardSecrets). */
  redact?: (text: string) => string;
}

/** What the guard knows about one tool the server listed. */
type Known = { admitted: true } | { admitted: false; withheld: WithheldTool };

interface Pending {
  resolve: (message: JsonObject) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

// JSON-RPC error codes.
const INVALID_REQUEST = -32600;
const INVALID_PARAMS = -32602;
const INTERNAL_ERROR = -32603;
const PARSE_ERROR = -32700;

/** The prefix of the ids of the guard's own requests to the server. */
const OWN_ID = "contractpin-guard-";
/** The id of the guard's own subscriptions/listen request (protocol 2026-07-28). */
const OWN_LISTEN = `${OWN_ID}listen`;

/**
 * One guarded session: relays messages between a client and one server,
 * ids and bytes unchanged, except that every tools/list result is checked
 * against the lock (withheld tools cut out of the served bytes), every
 * tools/call is checked against what the guard admitted, and list_changed
 * makes the guard list and check again before the client hears of it.
 */
export class Relay {
  /** Tools by name from the lists seen since the last change; undefined when nothing is known. */
  private known: Map<string, Known> | undefined;
  /** True when `known` came from a full list (all pages), so a name missing from it is not served. */
  private complete = false;
  private refreshing: Promise<void> | undefined;
  /** A 2025-era session: the client sent notifications/initialized. */
  private initialized = false;
  /**
   * A 2026-07-28 session (stateless, no initialize): the protocol envelope of
   * the client's latest request, which the guard's own requests carry too.
   */
  private envelope: JsonObject | undefined;
  private envelopeText: string | undefined;
  /** Whether the guard has asked the server for list_changed on a subscription of its own. */
  private listening = false;
  private ownSeq = 0;
  private readonly own = new Map<string, Pending>();
  /** Requests of the client the server has not answered: id key to the id's raw text. */
  private readonly pendingClient = new Map<string, string>();
  /** The client's tools/list requests awaiting an answer: id key to "first page". */
  private readonly clientLists = new Map<string, boolean>();
  private clientListNames = new Set<string>();
  /** The client's initialize or server/discover request, whose answer advertises listChanged. */
  private handshakeId: string | undefined;
  private clientChain: Promise<void> = Promise.resolve();
  private failure: string | undefined;

  constructor(
    private readonly upstream: Upstream,
    private readonly options: RelayOptions,
  ) {}

  /**
   * Makes the session answer every request with an error from now on
   * (`message` says why): the lock or the server is unusable.
   */
  fail(message: string): void {
    this.failure ??= message;
    for (const [key, rawId] of this.pendingClient) {
      this.clientLists.delete(key);
      this.replyError(rawId, INTERNAL_ERROR, `contractpin guard: ${message}`);
    }
    this.pendingClient.clear();
    for (const pending of this.own.values()) pending.reject(new Error(message));
    this.own.clear();
    this.known = undefined;
  }

  // ---------------------------------------------------------------- client

  /** One line from the client (without its newline). Messages are handled in order. */
  fromClient(line: Uint8Array): void {
    this.clientChain = this.clientChain
      .then(() => this.clientLine(line))
      .catch((err: unknown) => this.options.warn(`internal error: ${String(err)}`));
  }

  /** Resolves when every client message received so far has been handled. */
  drained(): Promise<void> {
    return this.clientChain;
  }

  private async clientLine(line: Uint8Array): Promise<void> {
    const text = Buffer.from(line.buffer, line.byteOffset, line.byteLength).toString("utf8");
    let message: JsonValue;
    try {
      message = parseJson(line);
    } catch (err) {
      // Not strict JSON: what the guard would read and what the server would
      // read could differ (a duplicate "name"), so it goes nowhere.
      let loose: unknown;
      try {
        loose = JSON.parse(text);
      } catch {
        this.replyError("null", PARSE_ERROR, "Parse error");
        return;
      }
      const id = (loose as { id?: unknown } | null)?.id;
      const why = err instanceof Error ? err.message : String(err);
      if (typeof id === "string" || typeof id === "number")
        this.replyError(
          JSON.stringify(id),
          INVALID_REQUEST,
          `contractpin guard: the message is not strict JSON: ${why}`,
        );
      else this.options.warn(`dropped a client message that is not strict JSON: ${why}`);
      return;
    }
    if (Array.isArray(message)) {
      // A batch (protocol 2025-03-26): each member is handled on its own.
      const spans = elementSpans(text, valueSpan(text, []) ?? [0, 0]);
      if (spans === undefined || spans.length !== message.length) {
        this.replyError("null", INVALID_REQUEST, "contractpin guard: unreadable batch");
        return;
      }
      for (let i = 0; i < message.length; i++) {
        const [s, e] = spans[i]!;
        await this.clientMessage(message[i]!, text.slice(s, e));
      }
      return;
    }
    await this.clientMessage(message, line);
  }

  private async clientMessage(message: JsonValue, raw: Uint8Array | string): Promise<void> {
    if (!isJsonObject(message)) return this.toServer(raw);
    const method = getMember(message, "method");
    const id = getMember(message, "id");
    const isRequest =
      typeof method === "string" && (typeof id === "string" || typeof id === "number");
    if (method === "notifications/initialized") this.initialized = true;
    if (method === "initialize") this.envelope = this.envelopeText = undefined;
    const envelope = envelopeOf(message);
    if (envelope !== undefined) this.adoptEnvelope(envelope);
    if (!isRequest && method === "tools/call") {
      // A call without a usable id (a notification, an id of null or an
      // object) could not be answered: it goes nowhere, never unchecked.
      this.options.warn("dropped a tools/call without a string or number id");
      if (id !== undefined)
        this.replyError(
          "null",
          INVALID_REQUEST,
          "contractpin guard: tools/call needs a string or number id",
        );
      return;
    }
    if (!isRequest) return this.toServer(raw);
    const rawId = idText(raw, id);
    const key = idKey(id);
    if (this.failure !== undefined)
      return this.replyError(rawId, INTERNAL_ERROR, `contractpin guard: ${this.failure}`);
    if (typeof id === "string" && id.startsWith(OWN_ID)) {
      return this.replyError(
        rawId,
        INVALID_REQUEST,
        `contractpin guard: ids starting ${OWN_ID} are reserved`,
      );
    }
    // A 2026-07-28 session has begun (a discover probe alone may be a disposable one).
    if (envelope !== undefined && method !== "server/discover") this.listen();
    if (method === "tools/call") return this.call(message, raw, rawId, key);
    if (method === "tools/list") {
      const params = getMember(message, "params");
      const cursor = isJsonObject(params) ? getMember(params, "cursor") : undefined;
      this.clientLists.set(key, cursor === undefined || cursor === null);
    } else if (method === "initialize" || method === "server/discover") this.handshakeId = key;
    this.pendingClient.set(key, rawId);
    return this.toServer(raw, key);
  }

  /**
   * Takes the envelope of the client's latest request for the guard's own.
   * Under 2026-07-28 a server may list other tools for other client
   * capabilities, so what was known under another envelope is listed again.
   */
  private adoptEnvelope(envelope: JsonObject): void {
    const text = JSON.stringify(envelope);
    if (text !== this.envelopeText) this.invalidate();
    this.envelope = envelope;
    this.envelopeText = text;
  }

  private async call(message: JsonObject, raw: Uint8Array | string, rawId: string, key: string) {
    const params = getMember(message, "params");
    const name = isJsonObject(params) ? getMember(params, "name") : undefined;
    if (typeof name !== "string")
      return this.replyError(rawId, INVALID_PARAMS, "Invalid params: tools/call needs a tool name");
    if (this.options.lock.changed()) this.invalidate();
    let known = this.known?.get(name);
    if (known === undefined && !(this.complete && this.known !== undefined)) {
      // Not seen listed (or nothing is known): list every page first.
      try {
        await this.refresh();
      } catch (err) {
        const why = reason(err);
        this.options.warn(
          `server ${this.options.server}: refused tools/call "${name}": cannot check it: ${why}`,
        );
        return this.replyError(
          rawId,
          INTERNAL_ERROR,
          `contractpin guard: cannot check tool ${name}: ${why}`,
        );
      }
      if (this.failure !== undefined)
        return this.replyError(rawId, INTERNAL_ERROR, `contractpin guard: ${this.failure}`);
      known = this.known?.get(name);
    }
    if (known?.admitted === true) {
      this.pendingClient.set(key, rawId);
      return this.toServer(raw, key);
    }
    const withheld: Omit<GuardEvent, "event" | "server"> =
      known === undefined ? { tool: name, reason: "unlisted" } : { ...known.withheld, tool: name };
    delete (withheld as { name?: string }).name;
    this.options.onEvent({ event: "refused", server: this.options.server, ...withheld });
    const data: Record<string, string> = { tool: name, reason: withheld.reason };
    if (withheld.pinned !== undefined) data["pinned"] = withheld.pinned;
    if (withheld.live !== undefined) data["live"] = withheld.live;
    data["by"] = "contractpin guard";
    return this.replyError(rawId, INVALID_PARAMS, `Unknown tool: ${name}`, data);
  }

  private toServer(raw: Uint8Array | string, key?: string): void {
    const bytes = typeof raw === "string" ? Buffer.from(raw, "utf8") : raw;
    this.upstream.sendRaw(bytes).catch((err: unknown) => {
      if (this.failure !== undefined) return;
      const why = `could not reach the server: ${reason(err)}`;
      this.options.warn(`server ${this.options.server}: ${why}`);
      // A request the server never received is answered here, never left hanging.
      const rawId = key === undefined ? undefined : this.pendingClient.get(key);
      if (key === undefined || rawId === undefined) return;
      this.pendingClient.delete(key);
      this.clientLists.delete(key);
      this.replyError(rawId, INTERNAL_ERROR, `contractpin guard: ${why}`);
    });
  }

  // ---------------------------------------------------------------- server

  /** One line from the server (without its newline). */
  fromServer(line: Uint8Array | string): void {
    const text =
      typeof line === "string"
        ? line
        : Buffer.from(line.buffer, line.byteOffset, line.byteLength).toString("utf8");
    if (text.trim() === "") return;
    let message: JsonValue;
    try {
      message = parseJson(line);
    } catch (err) {
      this.serverNotStrict(text, err);
      return;
    }
    if (Array.isArray(message)) {
      const spans = elementSpans(text, valueSpan(text, []) ?? [0, 0]);
      if (spans === undefined || spans.length !== message.length) {
        this.options.warn(`server ${this.options.server}: dropped a batch it could not split`);
        return;
      }
      message.forEach((m, i) => this.serverMessage(m, text.slice(spans[i]![0], spans[i]![1])));
      return;
    }
    this.serverMessage(message, text);
  }

  private serverNotStrict(text: string, err: unknown): void {
    const why = `the server sent a message that is not strict JSON: ${reason(err)}`;
    let loose: unknown;
    try {
      loose = JSON.parse(text);
    } catch {
      // A log line on stdout: skipped, as the official clients skip it.
      this.options.warn(`server ${this.options.server}: ignored a stdout line that is not JSON`);
      return;
    }
    this.options.warn(`server ${this.options.server}: ${why}`);
    // Whatever it was (a list_changed among them), what was known may be stale.
    this.invalidate();
    for (const m of Array.isArray(loose) ? loose : [loose]) {
      const id = (m as { id?: unknown } | null)?.id;
      if (typeof id !== "string" && typeof id !== "number") continue;
      const key = idKey(id);
      const own = this.own.get(key);
      if (own !== undefined) {
        this.own.delete(key);
        clearTimeout(own.timer);
        own.reject(new ContractpinError("SERVER_UNREADABLE", why));
        continue;
      }
      const rawId = this.pendingClient.get(key);
      if (rawId === undefined) continue;
      this.pendingClient.delete(key);
      if (this.clientLists.delete(key)) this.invalidate();
      this.replyError(rawId, INTERNAL_ERROR, `contractpin guard: ${why}`);
    }
  }

  private serverMessage(message: JsonValue, raw: string): void {
    if (!isJsonObject(message)) return this.options.toClient(raw);
    const method = getMember(message, "method");
    const id = getMember(message, "id");
    if (method === undefined && (typeof id === "string" || typeof id === "number")) {
      const key = idKey(id);
      const own = this.own.get(key);
      if (own !== undefined) {
        this.own.delete(key);
        clearTimeout(own.timer);
        own.resolve(message);
        return;
      }
      if (id === OWN_LISTEN) {
        const error = getMember(message, "error");
        const code = isJsonObject(error) ? getMember(error, "code") : undefined;
        return this.listenEnded(
          error === undefined
            ? "the server closed it"
            : `the server refused it: error ${String(code)}`,
        );
      }
      if (typeof id === "string" && id.startsWith(OWN_ID)) return; // a late answer to the guard
      const rawId = this.pendingClient.get(key);
      this.pendingClient.delete(key);
      if (rawId !== undefined && this.clientLists.has(key)) {
        const first = this.clientLists.get(key)!;
        this.clientLists.delete(key);
        void this.clientList(message, raw, rawId, first);
        return;
      }
      if (key === this.handshakeId) {
        this.handshakeId = undefined;
        return this.options.toClient(advertiseListChanged(message, raw));
      }
      return this.options.toClient(raw);
    }
    if (method === "notifications/tools/list_changed") {
      void this.listChanged(raw, subscriptionOf(message) === OWN_LISTEN);
      return;
    }
    // The rest of the guard's own subscription (its acknowledgement, its end) is not the client's.
    if (subscriptionOf(message) === OWN_LISTEN) return;
    if (method === "notifications/cancelled" && cancelledId(message) === OWN_LISTEN)
      return this.listenEnded("the server cancelled it");
    this.options.toClient(raw);
  }

  /**
   * Under 2026-07-28 a server sends list_changed only on subscriptions/listen
   * streams, and a client need not open one: the guard opens its own, once,
   * so that it hears every change whatever the client does.
   */
  private listen(): void {
    if (this.listening || this.envelope === undefined) return;
    this.listening = true;
    const request = {
      jsonrpc: "2.0",
      id: OWN_LISTEN,
      method: "subscriptions/listen",
      params: { _meta: this.envelope, notifications: { toolsListChanged: true } },
    };
    this.upstream
      .sendRaw(Buffer.from(JSON.stringify(request), "utf8"))
      .catch((err: unknown) => this.listenEnded(`it could not be sent: ${reason(err)}`));
  }

  /** The guard's own subscription is over (refused, closed, or never sent). */
  private listenEnded(why: string): void {
    if (this.failure !== undefined) return;
    this.options.warn(
      `server ${this.options.server}: the guard's own subscription to list_changed ended (${why}); ` +
        "changes are heard only on the client's subscriptions",
    );
  }

  /** A change: list and check again, then tell the client (unless it was the guard's own subscription). */
  private async listChanged(raw: string, own: boolean): Promise<void> {
    this.invalidate();
    if (this.begun() && this.failure === undefined) {
      try {
        await this.refresh();
      } catch (err) {
        this.options.warn(
          `server ${this.options.server}: could not list its tools after list_changed: ${reason(err)}`,
        );
      }
    }
    if (!own) this.options.toClient(raw);
  }

  /** Whether the client has begun the session, so that the guard may send requests in it. */
  private begun(): boolean {
    return this.initialized || this.envelope !== undefined;
  }

  /** Checks one page the client asked for, and passes on the admitted tools' bytes. */
  private async clientList(message: JsonObject, raw: string, rawId: string, first: boolean) {
    if (Object.hasOwn(message, "error")) return this.options.toClient(raw);
    try {
      // What was decided under another lock no longer holds, on any page.
      if (this.options.lock.changed()) this.invalidate();
      const server = await this.options.lock.current();
      const page = pageOf(message, "the tools/list result", "a tools/list result");
      const verdict = checkTools(server, page.tools, { allowNew: this.options.allowNew });
      if (first) this.clientListNames = new Set();
      for (const name of verdict.live.keys()) {
        if (this.clientListNames.has(name))
          throw new ContractpinError(
            "TOOLS_DUPLICATE_NAME",
            `two tools are named ${JSON.stringify(name)} (on different pages)`,
          );
        this.clientListNames.add(name);
      }
      this.learn(verdict.live.keys(), verdict.withheld, false);
      this.report(verdict.withheld);
      if (verdict.withheld.length === 0) return this.options.toClient(raw);
      if (this.options.onDrift === "block") {
        const names = verdict.withheld.map((w) => `${w.name} (${w.reason})`).join(", ");
        return this.replyError(
          rawId,
          INTERNAL_ERROR,
          `contractpin guard: the server's tools do not match the lock: ${names}`,
          {
            withheld: verdict.withheld.map((w) => ({ ...w })) as unknown as JsonValue,
          },
        );
      }
      this.options.toClient(spliceTools(raw, page.tools, verdict.admitted));
    } catch (err) {
      this.invalidate();
      const why = reason(err);
      this.options.warn(`server ${this.options.server}: refused its tools/list result: ${why}`);
      this.replyError(
        rawId,
        INTERNAL_ERROR,
        `contractpin guard: cannot check the tools/list result: ${why}`,
      );
    }
  }

  /** Records what a list said; `full` when it held every page. */
  private learn(names: Iterable<string>, withheld: readonly WithheldTool[], full: boolean): void {
    const known = full || this.known === undefined ? new Map<string, Known>() : this.known;
    for (const name of names) known.set(name, { admitted: true });
    for (const w of withheld) known.set(w.name, { admitted: false, withheld: w });
    this.known = known;
    if (full) this.complete = true;
  }

  private report(withheld: readonly WithheldTool[]): void {
    for (const w of withheld) {
      const { name, ...rest } = w;
      this.options.onEvent({ event: "withheld", server: this.options.server, tool: name, ...rest });
    }
  }

  private invalidate(): void {
    this.known = undefined;
    this.complete = false;
  }

  /** Lists every page, checks them all against the lock; one refresh at a time. */
  private refresh(): Promise<void> {
    this.refreshing ??= this.listAll().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  private async listAll(): Promise<void> {
    if (!this.begun())
      throw new Error(
        "the client has not begun the session yet (initialize, or a 2026-07-28 request)",
      );
    this.invalidate();
    const server: PinnedServer = await this.options.lock.current();
    const tools: JsonValue[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let page = 1; ; page++) {
      if (page > MAX_PAGES)
        throw new ContractpinError(
          "SERVER_UNREADABLE",
          `the server's tools/list ran past ${MAX_PAGES} pages`,
        );
      const response = await this.ownRequest("tools/list", cursor === undefined ? {} : { cursor });
      const result = pageOf(response, `tools/list page ${page}`, "a tools/list result");
      for (const tool of result.tools) tools.push(tool);
      if (result.nextCursor === undefined) break;
      if (seen.has(result.nextCursor))
        throw new ContractpinError(
          "SERVER_UNREADABLE",
          `the server repeated a cursor on tools/list page ${page}: its pagination never ends`,
        );
      seen.add(result.nextCursor);
      cursor = result.nextCursor;
    }
    const verdict = checkTools(server, tools, { allowNew: this.options.allowNew });
    this.learn(verdict.live.keys(), verdict.withheld, true);
    this.report(verdict.withheld);
  }

  private ownRequest(method: string, params: JsonObject): Promise<JsonObject> {
    const id = `${OWN_ID}${++this.ownSeq}`;
    return new Promise((resolve, reject) => {
      if (this.failure !== undefined) return reject(new Error(this.failure));
      const timer = setTimeout(() => {
        this.own.delete(idKey(id));
        reject(
          new ContractpinError(
            "SERVER_UNREADABLE",
            `the server did not answer tools/list within ${this.options.timeoutMs / 1000} s`,
          ),
        );
      }, this.options.timeoutMs);
      this.own.set(idKey(id), { resolve, reject, timer });
      // In a 2026-07-28 session each request carries the client's envelope.
      const full = this.envelope === undefined ? params : { _meta: this.envelope, ...params };
      const text = JSON.stringify({ jsonrpc: "2.0", id, method, params: full });
      this.upstream.sendRaw(Buffer.from(text, "utf8")).catch((err: unknown) => {
        clearTimeout(timer);
        this.own.delete(idKey(id));
        reject(err instanceof Error ? err : new Error(String(err)));
      });
    });
  }

  // ---------------------------------------------------------------- replies

  private replyError(rawId: string, code: number, message: string, data?: JsonValue): void {
    const shown = this.options.redact?.(message) ?? message;
    const error = JSON.stringify({ code, message: shown, ...(data === undefined ? {} : { data }) });
    this.options.toClient(`{"jsonrpc":"2.0","id":${rawId},"error":${error}}`);
  }
}

/** The id of a message as its sender wrote it (so a long integer keeps its digits). */
function idText(raw: Uint8Array | string, id: JsonValue): string {
  const text =
    typeof raw === "string"
      ? raw
      : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString("utf8");
  const span = valueSpan(text, ["id"]);
  return span === undefined ? JSON.stringify(id) : text.slice(span[0], span[1]);
}

/** The request a notifications/cancelled names. */
function cancelledId(message: JsonObject): JsonValue | undefined {
  const params = getMember(message, "params");
  return isJsonObject(params) ? getMember(params, "requestId") : undefined;
}

function idKey(id: JsonValue): string {
  return `${typeof id}:${String(id)}`;
}

function reason(err: unknown): string {
  if (isContractpinError(err)) return err.message;
  return err instanceof Error ? err.message : String(err);
}

export { spliceTools };
export type { Span };
