import { ContractpinError, isContractpinError } from "../core/errors.js";
import { getMember, isJsonObject, type JsonObject, type JsonValue } from "../core/json-value.js";
import type { PinnedServer } from "../core/lock.js";
import { parseJson } from "../core/strict-json.js";
import { pageOf } from "../core/tools-list.js";
import type { Digest } from "../core/digest.js";
import { idKey, idText, isAnswerShaped, Requests, type Sent } from "./accounting.js";
import { envelopeOf, subscriptionOf } from "./era.js";
import { elementSpans, valueSpan, type Span } from "./json-spans.js";
import type { LockState } from "./lock-state.js";
import { Outbox, type ToClient } from "./outbox.js";
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
  /**
   * Writes one message to the client (a newline is added by the caller);
   * `answers` is the client's id (its text) when the message answers one of
   * the client's requests.
   */
  toClient: ToClient;
  /** Reports one event (a stderr line, a JSON log line). */
  onEvent: (event: GuardEvent) => void;
  /** Reports a problem in one line (stderr). */
  warn: (message: string) => void;
  /** Hides expanded `${VAR}` values in what the client is told (guardSecrets). */
  redact?: (text: string) => string;
}

/** What the guard knows about one tool the server listed. */
type Known = { admitted: true } | { admitted: false; withheld: WithheldTool };

/**
 * What the guard does with the answer to one of the client's requests of a
 * method it checks: the text to pass on (the answer's own bytes, or less, or
 * an error in its place), at once or once checked. An answer of any other
 * method is passed on as it came; every answer has passed the accounting
 * (accounting.ts) before its policy sees it, and an error answer goes on
 * unchecked (it holds no contract).
 */
type Policy = (
  answer: JsonObject,
  raw: string,
  sent: Extract<Sent, { by: "client" }>,
) => string | Promise<string>;

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
  /** Every request sent to the server and not answered yet: the client's and the guard's own. */
  private readonly requests = new Requests();
  /** The names on the pages of the client's current tools/list, so far. */
  private clientListNames = new Set<string>();
  private clientChain: Promise<void> = Promise.resolve();
  private failure: string | undefined;
  /** Everything the client is sent, in order. */
  private readonly out: Outbox;
  /** The methods whose answers the guard checks, and how. */
  private readonly policies: Readonly<Record<string, Policy>> = {
    "tools/list": (answer, raw, sent) => this.clientList(answer, raw, sent.rawId, sent.firstPage),
    // The handshake's answer advertises listChanged, so that the client hears the guard's.
    initialize: (answer, raw) => advertiseListChanged(answer, raw),
    "server/discover": (answer, raw) => advertiseListChanged(answer, raw),
  };

  constructor(
    private readonly upstream: Upstream,
    private readonly options: RelayOptions,
  ) {
    this.out = new Outbox(options.toClient);
  }

  /**
   * Makes the session answer every request with an error from now on
   * (`message` says why): the lock or the server is unusable.
   */
  fail(message: string): void {
    this.failure ??= message;
    for (const sent of this.requests.clear()) {
      if (sent.by === "client")
        this.replyError(sent.rawId, INTERNAL_ERROR, `contractpin guard: ${message}`);
      else sent.settle(new Error(message));
    }
    this.known = undefined;
  }

  // ---------------------------------------------------------------- client

  /** One line from the client (without its newline). Messages are handled in order. */
  fromClient(line: Uint8Array): void {
    this.clientChain = this.clientChain
      .then(() => this.clientLine(line))
      .catch((err: unknown) => this.options.warn(`internal error: ${String(err)}`));
  }

  /** Resolves when every client message received so far has been handled, and what it led to written. */
  drained(): Promise<void> {
    return this.clientChain.then(() => this.out.drained());
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
    if (method === "notifications/cancelled" && isOwnId(cancelledId(message))) {
      // Only the guard cancels its own requests.
      this.options.warn(
        "dropped a client's notifications/cancelled naming a request of the guard's",
      );
      return;
    }
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
    const text = typeof raw === "string" ? raw : utf8(raw);
    const rawId = idText(text, id);
    const key = idKey(id, text);
    if (this.failure !== undefined)
      return this.replyError(rawId, INTERNAL_ERROR, `contractpin guard: ${this.failure}`);
    if (isOwnId(id)) {
      return this.replyError(
        rawId,
        INVALID_REQUEST,
        `contractpin guard: ids starting ${OWN_ID} are reserved`,
      );
    }
    // A 2026-07-28 session has begun (a discover probe alone may be a disposable one).
    if (envelope !== undefined && method !== "server/discover") this.listen();
    if (method === "tools/call") return this.call(message, raw, rawId, key);
    const params = getMember(message, "params");
    const cursor = isJsonObject(params) ? getMember(params, "cursor") : undefined;
    const firstPage = cursor === undefined || cursor === null;
    return this.forward(raw, key, { by: "client", rawId, method, firstPage });
  }

  /** Sends a client's request on, recorded as awaiting its answer (refused when its id is in use). */
  private forward(raw: Uint8Array | string, key: string, sent: Sent & { by: "client" }): void {
    if (!this.requests.add(key, sent))
      return this.replyError(
        sent.rawId,
        INVALID_REQUEST,
        "contractpin guard: the id is already in use by a request not yet answered",
      );
    this.toServer(raw, key);
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
    if (known?.admitted === true)
      return this.forward(raw, key, {
        by: "client",
        rawId,
        method: "tools/call",
        firstPage: false,
      });
    const withheld: Omit<GuardEvent, "event" | "server"> =
      known === undefined ? { tool: name, reason: "unlisted" } : { ...known.withheld, tool: name };
    delete (withheld as { name?: string }).name;
    this.options.onEvent({ event: "refused", server: this.options.server, ...withheld });
    const data: Record<string, string> = { tool: name, reason: withheld.reason };
    if (withheld.pinned !== undefined) data["pinned"] = withheld.pinned;
    if (withheld.live !== undefined) data["live"] = withheld.live;
    data["by"] = "contractpin guard";
    // A withheld tool's refusal names the command that explains it, not only digests.
    const why =
      known === undefined
        ? ""
        : `; contractpin guard withholds it (${withheld.reason}): run 'contractpin verify ${this.options.server}' to see why`;
    return this.replyError(rawId, INVALID_PARAMS, `Unknown tool: ${name}${why}`, data);
  }

  private toServer(raw: Uint8Array | string, key?: string): void {
    const bytes = typeof raw === "string" ? Buffer.from(raw, "utf8") : raw;
    this.upstream.sendRaw(bytes).catch((err: unknown) => {
      if (this.failure !== undefined) return;
      const why = `could not reach the server: ${reason(err)}`;
      this.options.warn(`server ${this.options.server}: ${why}`);
      // A request the server never received is answered here, never left hanging.
      const sent = key === undefined ? undefined : this.requests.take(key);
      if (sent?.by === "client")
        this.replyError(sent.rawId, INTERNAL_ERROR, `contractpin guard: ${why}`);
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
      // The loose parse kept no number's text: the request it names, written plainly.
      const sent = this.requests.take(idKey(id, JSON.stringify({ id })));
      if (sent?.by === "guard") sent.settle(new ContractpinError("SERVER_UNREADABLE", why));
      else if (sent !== undefined)
        this.replyError(sent.rawId, INTERNAL_ERROR, `contractpin guard: ${why}`);
    }
  }

  private serverMessage(message: JsonValue, raw: string): void {
    if (!isJsonObject(message)) return this.out.send(raw);
    if (isAnswerShaped(message)) return this.serverAnswer(message, raw);
    const method = getMember(message, "method");
    if (method === "notifications/tools/list_changed") {
      void this.listChanged(raw, subscriptionOf(message) === OWN_LISTEN);
      return;
    }
    // The rest of the guard's own subscription (its acknowledgement, its end) is not the client's.
    if (subscriptionOf(message) === OWN_LISTEN) return;
    if (method === "notifications/cancelled" && cancelledId(message) === OWN_LISTEN)
      return this.listenEnded("the server cancelled it");
    this.out.send(raw);
  }

  /**
   * An answer (or what tries to be one): passed on only as the answer to the
   * one open request it names, through that method's policy; anything else
   * is dropped with one line, and a request it names gets an error.
   */
  private serverAnswer(message: JsonObject, raw: string): void {
    const settled = this.requests.settle(message, raw);
    if (settled.kind === "unaddressed") return this.out.send(raw);
    if (settled.kind === "stray") {
      // A late answer to one of the guard's own requests (after its timeout) is no news.
      if (!isOwnId(settled.id))
        this.options.warn(`server ${this.options.server}: dropped ${settled.why}`);
      return;
    }
    const { sent } = settled;
    if (settled.kind === "flawed") {
      this.options.warn(`server ${this.options.server}: dropped an answer: ${settled.why}`);
      if (sent.by === "guard")
        return sent.settle(new ContractpinError("SERVER_UNREADABLE", settled.why));
      return this.replyError(sent.rawId, INTERNAL_ERROR, `contractpin guard: ${settled.why}`);
    }
    if (sent.by === "guard") return sent.settle(message);
    const policy = settled.error ? undefined : this.policies[sent.method];
    const text = policy === undefined ? raw : policy(message, raw, sent);
    if (typeof text === "string") this.out.send(text, sent.rawId);
    else this.out.hold(text, sent.rawId);
  }

  /**
   * Under 2026-07-28 a server sends list_changed only on subscriptions/listen
   * streams, and a client need not open one: the guard opens its own, once,
   * so that it hears every change whatever the client does.
   */
  private listen(): void {
    if (this.listening || this.envelope === undefined) return;
    this.listening = true;
    // Its answer comes when the subscription ends.
    this.requests.add(idKey(OWN_LISTEN, ""), {
      by: "guard",
      method: "subscriptions/listen",
      settle: (answer) => {
        const error = answer instanceof Error ? undefined : getMember(answer, "error");
        const code = isJsonObject(error) ? getMember(error, "code") : undefined;
        this.listenEnded(
          answer instanceof Error
            ? answer.message
            : error === undefined
              ? "the server closed it"
              : `the server refused it: error ${String(code)}`,
        );
      },
    });
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
    if (!own) this.out.send(raw);
  }

  /** Whether the client has begun the session, so that the guard may send requests in it. */
  private begun(): boolean {
    return this.initialized || this.envelope !== undefined;
  }

  /**
   * Checks one page the client asked for: the text to pass on is the page
   * with only the admitted tools' bytes, or an error in its place.
   */
  private async clientList(message: JsonObject, raw: string, rawId: string, first: boolean) {
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
      if (verdict.withheld.length === 0) return raw;
      if (this.options.onDrift === "block") {
        const names = verdict.withheld.map((w) => `${w.name} (${w.reason})`).join(", ");
        return this.errorText(
          rawId,
          INTERNAL_ERROR,
          `contractpin guard: the server's tools do not match the lock: ${names}`,
          {
            withheld: verdict.withheld.map((w) => ({ ...w })) as unknown as JsonValue,
          },
        );
      }
      return spliceTools(raw, page.tools, verdict.admitted);
    } catch (err) {
      this.invalidate();
      const why = reason(err);
      this.options.warn(`server ${this.options.server}: refused its tools/list result: ${why}`);
      return this.errorText(
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
    const key = idKey(id, "");
    return new Promise((resolve, reject) => {
      if (this.failure !== undefined) return reject(new Error(this.failure));
      const timer = setTimeout(() => {
        this.requests.take(key);
        reject(
          new ContractpinError(
            "SERVER_UNREADABLE",
            `the server did not answer tools/list within ${this.options.timeoutMs / 1000} s`,
          ),
        );
      }, this.options.timeoutMs);
      const settle = (answer: JsonObject | Error) => {
        clearTimeout(timer);
        if (answer instanceof Error) reject(answer);
        else resolve(answer);
      };
      this.requests.add(key, { by: "guard", method, settle });
      // In a 2026-07-28 session each request carries the client's envelope.
      const full = this.envelope === undefined ? params : { _meta: this.envelope, ...params };
      const text = JSON.stringify({ jsonrpc: "2.0", id, method, params: full });
      this.upstream.sendRaw(Buffer.from(text, "utf8")).catch((err: unknown) => {
        this.requests.take(key);
        settle(err instanceof Error ? err : new Error(String(err)));
      });
    });
  }

  // ---------------------------------------------------------------- replies

  /** Answers one of the client's requests with an error in the server's place. */
  private replyError(rawId: string, code: number, message: string, data?: JsonValue): void {
    this.out.send(this.errorText(rawId, code, message, data), rawId);
  }

  private errorText(rawId: string, code: number, message: string, data?: JsonValue): string {
    const shown = this.options.redact?.(message) ?? message;
    const error = JSON.stringify({ code, message: shown, ...(data === undefined ? {} : { data }) });
    return `{"jsonrpc":"2.0","id":${rawId},"error":${error}}`;
  }
}

/** The request a notifications/cancelled names. */
function cancelledId(message: JsonObject): JsonValue | undefined {
  const params = getMember(message, "params");
  return isJsonObject(params) ? getMember(params, "requestId") : undefined;
}

/** Whether an id is of the kind the guard gives its own requests (reserved: no client's may be). */
function isOwnId(id: JsonValue | undefined): boolean {
  return typeof id === "string" && id.startsWith(OWN_ID);
}

function utf8(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
}

function reason(err: unknown): string {
  if (isContractpinError(err)) return err.message;
  return err instanceof Error ? err.message : String(err);
}

export { spliceTools };
export type { Span };
