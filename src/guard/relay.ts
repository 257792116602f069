import { ContractpinError } from "../core/errors.js";
import {
  getMember,
  isJsonObject,
  type JsonObject,
  type JsonValue,
} from "../core/json/json-value.js";
import { idKey, idText, isAnswerShaped, Requests, type Sent } from "./wire/accounting.js";
import { envelopeOf, subscriptionOf } from "./wire/era.js";
import type { DropEvent, RelayOptions, Upstream } from "./policy/guard-types.js";
import { policiesFor, type Policies } from "./policy/method-policy.js";
import { hears } from "./notice.js";
import { Outbox } from "./wire/outbox.js";
import { isOwnId, OWN_ID, OWN_LISTEN, OwnRequests, reason } from "./wire/own-requests.js";
import * as rpc from "./wire/rpc-errors.js";
import { readLine, type LineRead } from "./wire/wire-lines.js";

export type {
  DropEvent,
  GuardEvent,
  OnDrift,
  RelayOptions,
  ToolEvent,
  Upstream,
} from "./policy/guard-types.js";

/**
 * One guarded session: relays messages between a client and one server,
 * ids and bytes unchanged, except what the policy table (method-policy.ts)
 * checks: every list result (tools, prompts, resource templates, resources
 * when pinned) against the lock (withheld items cut out of the served
 * bytes), every tools/call, prompts/get and resources/read against what the
 * guard admitted, the handshake's instructions, and list_changed makes the
 * guard list and check again before the client hears of it. Every answer
 * passes the accounting (accounting.ts) first.
 */
export class Relay {
  /** A 2025-era session: the client sent notifications/initialized. */
  private initialized = false;
  /**
   * A 2026-07-28 session (stateless, no initialize): the protocol envelope of
   * the client's latest request, which the guard's own requests carry too.
   */
  private envelope: JsonObject | undefined;
  private envelopeText: string | undefined;
  /** Every request sent to the server and not answered yet: the client's and the guard's own. */
  private readonly requests = new Requests();
  private readonly own: OwnRequests;
  private clientChain: Promise<void> = Promise.resolve();
  private failure: string | undefined;
  /** The level the client last set with logging/setLevel (the guard's notices respect it). */
  private logLevel: string | undefined;
  /** Everything the client is sent, in order. */
  private readonly out: Outbox;
  /** The methods whose messages the guard checks, and how. */
  private readonly policies: Policies;

  constructor(
    private readonly upstream: Upstream,
    private readonly options: RelayOptions,
  ) {
    this.out = new Outbox(options.toClient);
    const session = {
      server: options.server,
      timeoutMs: options.timeoutMs,
      warn: options.warn,
      options,
      envelope: () => this.envelope,
      failure: () => this.failure,
      begun: () => this.initialized || this.envelope !== undefined,
      ownRequest: (method: string, params: JsonObject) => this.own.request(method, params),
      errorText: (rawId: string, code: number, message: string, data?: JsonValue) =>
        rpc.errorText(rawId, code, message, data, options.redact),
      hearsNotices: () => hears(this.logLevel),
    };
    this.own = new OwnRequests(this.requests, upstream, session);
    this.policies = policiesFor(session);
  }

  /**
   * Makes the session answer every request with an error from now on
   * (`message` says why): the lock or the server is unusable.
   */
  fail(message: string): void {
    this.failure ??= message;
    for (const sent of this.requests.clear()) {
      if (sent.by === "client")
        this.replyError(sent.rawId, rpc.INTERNAL_ERROR, `contractpin guard: ${message}`);
      else sent.settle(new Error(message));
    }
    this.policies.reset();
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
    const read = readLine(line, utf8(line));
    if (read.kind === "one") return this.clientMessage(read.message, line);
    if (read.kind === "not-strict") return this.clientNotStrict(read);
    if (read.kind === "unsplittable")
      return this.replyError("null", rpc.INVALID_REQUEST, "contractpin guard: unreadable batch");
    // A batch (protocol 2025-03-26): each member is handled on its own.
    for (const [message, raw] of read.members) await this.clientMessage(message, raw);
  }

  /**
   * Not strict JSON: what the guard would read and what the server would
   * read could differ (a duplicate "name"), so it goes nowhere.
   */
  private clientNotStrict({ why, loose }: Extract<LineRead, { kind: "not-strict" }>): void {
    if (loose === undefined) return this.replyError("null", rpc.PARSE_ERROR, "Parse error");
    const id = (loose.value as { id?: unknown } | null)?.id;
    if (typeof id === "string" || typeof id === "number")
      this.replyError(
        JSON.stringify(id),
        rpc.INVALID_REQUEST,
        `contractpin guard: the message is not strict JSON: ${why}`,
      );
    else this.drop("client", `a client message that is not strict JSON: ${why}`);
  }

  private async clientMessage(message: JsonValue, raw: Uint8Array | string): Promise<void> {
    if (!isJsonObject(message)) return this.toServer(raw);
    const method = getMember(message, "method");
    const id = getMember(message, "id");
    const isRequest =
      typeof method === "string" && (typeof id === "string" || typeof id === "number");
    if (method === "notifications/initialized") this.initialized = true;
    if (method === "initialize") this.envelope = this.envelopeText = undefined;
    if (method === "logging/setLevel") this.logLevel = levelOf(message);
    const envelope = envelopeOf(message);
    if (envelope !== undefined) this.adoptEnvelope(envelope);
    if (method === "notifications/cancelled" && isOwnId(cancelledId(message)))
      // Only the guard cancels its own requests.
      return this.drop(
        "client",
        "a client's notifications/cancelled naming a request of the guard's",
      );
    const check = typeof method === "string" ? this.policyOf(method)?.request : undefined;
    if (!isRequest && check !== undefined) {
      // A checked request without a usable id (a notification, an id of null
      // or an object) could not be answered: it goes nowhere, never unchecked.
      this.drop("client", `a ${method as string} without a string or number id`);
      if (id !== undefined)
        this.replyError(
          "null",
          rpc.INVALID_REQUEST,
          `contractpin guard: ${method as string} needs a string or number id`,
        );
      return;
    }
    if (!isRequest) return this.toServer(raw);
    const text = typeof raw === "string" ? raw : utf8(raw);
    const rawId = idText(text, id);
    const key = idKey(id, text);
    if (this.failure !== undefined)
      return this.replyError(rawId, rpc.INTERNAL_ERROR, `contractpin guard: ${this.failure}`);
    if (isOwnId(id))
      return this.replyError(
        rawId,
        rpc.INVALID_REQUEST,
        `contractpin guard: ids starting ${OWN_ID} are reserved`,
      );
    // A 2026-07-28 session has begun (a discover probe alone may be a disposable one).
    if (envelope !== undefined && method !== "server/discover") this.own.listen();
    if (check !== undefined) {
      const pending = check(message, rawId);
      const refusal = pending instanceof Promise ? await pending : pending;
      if (refusal !== undefined) return this.out.send(refusal, rawId);
    }
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
        rpc.INVALID_REQUEST,
        "contractpin guard: the id is already in use by a request not yet answered",
      );
    this.toServer(raw, key);
  }

  /**
   * Takes the envelope of the client's latest request for the guard's own.
   * Under 2026-07-28 a server may list other tools for other client
   * capabilities, so what was known under another envelope is checked again.
   */
  private adoptEnvelope(envelope: JsonObject): void {
    const text = JSON.stringify(envelope);
    if (text !== this.envelopeText) this.policies.reset();
    this.envelope = envelope;
    this.envelopeText = text;
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
        this.replyError(sent.rawId, rpc.INTERNAL_ERROR, `contractpin guard: ${why}`);
    });
  }

  // ---------------------------------------------------------------- server

  /** One line from the server (without its newline). */
  fromServer(line: Uint8Array | string): void {
    const text = typeof line === "string" ? line : utf8(line);
    if (text.trim() === "") return;
    const read = readLine(line, text);
    if (read.kind === "one") return this.serverMessage(read.message, text);
    if (read.kind === "not-strict") return this.serverNotStrict(read);
    if (read.kind === "unsplittable") return this.drop("server", "a batch it could not split");
    for (const [message, raw] of read.members) this.serverMessage(message, raw);
  }

  private serverNotStrict({ why: reasonText, loose }: Extract<LineRead, { kind: "not-strict" }>) {
    // A log line on stdout: skipped, as the official clients skip it.
    if (loose === undefined)
      return this.options.warn(
        `server ${this.options.server}: ignored a stdout line that is not JSON`,
      );
    const what = `a message that is not strict JSON: ${reasonText}`;
    const why = `the server sent ${what}`;
    this.drop("server", what);
    // Whatever it was (a list_changed among them), what was known may be stale.
    this.policies.reset();
    for (const m of Array.isArray(loose.value) ? loose.value : [loose.value]) {
      const id = (m as { id?: unknown } | null)?.id;
      if (typeof id !== "string" && typeof id !== "number") continue;
      // The loose parse kept no number's text: the request it names, written plainly.
      const sent = this.requests.take(idKey(id, JSON.stringify({ id })));
      if (sent?.by === "guard") sent.settle(new ContractpinError("SERVER_UNREADABLE", why));
      else if (sent !== undefined)
        this.replyError(sent.rawId, rpc.INTERNAL_ERROR, `contractpin guard: ${why}`);
    }
  }

  private serverMessage(message: JsonValue, raw: string): void {
    if (!isJsonObject(message)) return this.out.send(raw);
    if (isAnswerShaped(message)) return this.serverAnswer(message, raw);
    const method = getMember(message, "method");
    const own = subscriptionOf(message) === OWN_LISTEN;
    const check = typeof method === "string" ? this.policyOf(method)?.notification : undefined;
    if (check !== undefined) {
      // The guard's own subscription's notifications are the guard's alone.
      void check(message, raw).then((text) => {
        if (text !== undefined && !own) this.out.send(text);
      });
      return;
    }
    // The rest of the guard's own subscription (its acknowledgement, its end) is not the client's.
    if (own) return;
    if (method === "notifications/cancelled" && cancelledId(message) === OWN_LISTEN)
      return this.own.listenEnded("the server cancelled it");
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
      if (!isOwnId(settled.id)) this.drop("server", settled.why);
      return;
    }
    const { sent } = settled;
    if (settled.kind === "flawed") {
      this.drop("server", `an answer: ${settled.why}`);
      if (sent.by === "guard")
        return sent.settle(new ContractpinError("SERVER_UNREADABLE", settled.why));
      return this.replyError(sent.rawId, rpc.INTERNAL_ERROR, `contractpin guard: ${settled.why}`);
    }
    if (sent.by === "guard") return sent.settle(message);
    const check = settled.error ? undefined : this.policyOf(sent.method)?.answer;
    const text = check === undefined ? raw : check(message, raw, sent);
    if (text instanceof Promise) this.out.hold(text, sent.rawId);
    else this.out.send(text, sent.rawId);
  }

  // ---------------------------------------------------------------- replies

  /** The policy of a method, if the guard checks it (a method named like an Object member is not). */
  private policyOf(method: string) {
    const table = this.policies.table;
    return Object.hasOwn(table, method) ? table[method] : undefined;
  }

  /** Reports a message that goes nowhere (stderr, and the --log file). */
  private drop(from: DropEvent["from"], what: string): void {
    this.options.onEvent({ event: "dropped", server: this.options.server, from, what });
  }

  /** Answers one of the client's requests with an error in the server's place. */
  private replyError(rawId: string, code: number, message: string, data?: JsonValue): void {
    this.out.send(rpc.errorText(rawId, code, message, data, this.options.redact), rawId);
  }
}

/** The level a logging/setLevel asks for (a string), if it names one. */
function levelOf(message: JsonObject): string | undefined {
  const params = getMember(message, "params");
  const level = isJsonObject(params) ? getMember(params, "level") : undefined;
  return typeof level === "string" ? level : undefined;
}

/** The request a notifications/cancelled names. */
function cancelledId(message: JsonObject): JsonValue | undefined {
  const params = getMember(message, "params");
  return isJsonObject(params) ? getMember(params, "requestId") : undefined;
}

function utf8(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
}
