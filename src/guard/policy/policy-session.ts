/**
 * What a method's policy is and what it needs of its session, in a leaf of
 * its own: the table (method-policy.ts) and each policy in it use these.
 */
import type { JsonObject, JsonValue } from "../../core/json/json-value.js";
import type { Sent } from "../wire/accounting.js";
import type { RelayOptions } from "./guard-types.js";
import type { Answer } from "../wire/outbox.js";

/** One of the client's requests forwarded to the server, awaiting its answer. */
export type ClientSent = Extract<Sent, { by: "client" }>;

/**
 * What the guard checks for one method, at up to three points of the
 * relay. Each is optional; a method with no entry passes unchanged.
 */
export interface MethodPolicy {
  /**
   * A client's request of this method, before it is forwarded: undefined
   * to forward it, or the error answer the guard sends in its place (the
   * request then never reaches the server). A request of a method with this
   * check that has no string or number id is dropped: it could not be refused.
   */
  request?(message: JsonObject, rawId: string): string | undefined | Promise<string | undefined>;
  /**
   * The answer to a client's request of this method (never an error answer:
   * it holds no contract): the text to pass on (the answer's own bytes, or
   * less, or an error in its place), at once or once checked, after the
   * guard's notices to the client, if any (outbox.ts). Every answer has
   * passed the accounting (accounting.ts) before.
   */
  answer?(answer: JsonObject, raw: string, sent: ClientSent): Answer | Promise<Answer>;
  /**
   * A server notification of this method: what to do before the client
   * hears of it; resolves with the text to pass on (undefined: nothing).
   */
  notification?(message: JsonObject, raw: string): Promise<string | undefined>;
}

/** What the policies need of the session they check. */
export interface PolicySession {
  readonly options: RelayOptions;
  /** Whether the client has begun the session, so that the guard may send requests in it. */
  begun(): boolean;
  /** Why the session answers only errors, if it does. */
  failure(): string | undefined;
  /** Sends a request of the guard's own and resolves with its answer. */
  ownRequest(method: string, params: JsonObject): Promise<JsonObject>;
  /** An error answer to the client's request `rawId`, its message redacted. */
  errorText(rawId: string, code: number, message: string, data?: JsonValue): string;
  /** Whether the client hears the guard's notices (a warning, at the level it set). */
  hearsNotices(): boolean;
}
