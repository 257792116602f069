import { getMember, type JsonObject, type JsonValue } from "../../core/json/json-value.js";
import { valueSpan } from "../../core/json/json-spans.js";

/**
 * The guard's request/response accounting: one table of the requests sent
 * to the server and not yet answered (the client's, forwarded, and the
 * guard's own), keyed by id, and the one rule every answer from the server
 * passes before anything else sees it (a method's policy, the client).
 * An answer is taken once, for exactly one open request, matched by id
 * exactly: a string id by its value, a number by its text as written, so
 * that "1", "01", " 1", "1e0" and 1.0 never answer the request 1 (the
 * official client matches with `Number(id)` and would take any of them).
 */

/** A request the guard sent to the server and that awaits its answer. */
export type Sent =
  | {
      by: "client";
      /** The client's id as the client wrote it (the guard answers with it in the server's place). */
      rawId: string;
      method: string;
      /** For tools/list: the request asks for the first page (no cursor). */
      firstPage: boolean;
    }
  | {
      by: "guard";
      method: string;
      /** Takes the answer (or why it was unusable). */
      settle: (answer: JsonObject | Error) => void;
    };

/** What the rule made of one answer-shaped message from the server. */
export type Settled =
  /** The answer to `sent`, now closed; `error` when it is an error answer. */
  | { kind: "answer"; sent: Sent; error: boolean }
  /** It names the open request `sent` (now closed) but is no answer: `why` says how. */
  | { kind: "flawed"; sent: Sent; why: string }
  /** It answers no open request (a second answer, an id never sent, no id): dropped. */
  | { kind: "stray"; why: string; id: JsonValue | undefined }
  /** An error that names no request (id null or absent), as a server reports an unreadable one. */
  | { kind: "unaddressed" };

/**
 * Whether a server message is an answer (or tries to be one): it has a
 * result or an error, or no string method. Anything else is the server's
 * own request or notification.
 */
export function isAnswerShaped(message: JsonObject): boolean {
  return (
    typeof getMember(message, "method") !== "string" ||
    Object.hasOwn(message, "result") ||
    Object.hasOwn(message, "error")
  );
}

/** The requests of one session sent to the server and not yet answered. */
export class Requests {
  private readonly open = new Map<string, Sent>();

  /** Records a request about to be sent with the id `key`; false (nothing recorded) when that id is open already. */
  add(key: string, sent: Sent): boolean {
    if (this.open.has(key)) return false;
    this.open.set(key, sent);
    return true;
  }

  /** Closes the request `key` without an answer (it could not be sent, or timed out). */
  take(key: string): Sent | undefined {
    const sent = this.open.get(key);
    this.open.delete(key);
    return sent;
  }

  /** Closes every open request and returns them. */
  clear(): Sent[] {
    const all = [...this.open.values()];
    this.open.clear();
    return all;
  }

  /**
   * Applies the rule to one answer-shaped message (`raw` its exact text):
   * it answers an open request only if its id is exactly that request's,
   * and it is an answer only with exactly one of result and error and no
   * method. The request it names is closed either way.
   */
  settle(message: JsonObject, raw: string): Settled {
    const id = getMember(message, "id");
    const result = Object.hasOwn(message, "result");
    const error = Object.hasOwn(message, "error");
    if (typeof id !== "string" && typeof id !== "number") {
      if (
        (id === undefined || id === null) &&
        error &&
        !result &&
        !Object.hasOwn(message, "method")
      )
        return { kind: "unaddressed" };
      return { kind: "stray", why: "an answer without a request id", id };
    }
    const key = idKey(id, raw);
    const sent = this.open.get(key);
    if (sent === undefined)
      return {
        kind: "stray",
        why: `an answer to id ${show(id, raw)}: no request with that id awaits an answer (it was answered, or never sent)`,
        id,
      };
    this.open.delete(key);
    const flaw =
      result && error
        ? "both result and error"
        : !result && !error
          ? "neither result nor error"
          : Object.hasOwn(message, "method")
            ? "a method"
            : undefined;
    if (flaw !== undefined) return { kind: "flawed", sent, why: `the server's answer has ${flaw}` };
    return { kind: "answer", sent, error };
  }
}

/**
 * The key an id is matched by: a string by its value, a number by its text
 * as its sender wrote it in `raw` (the message it is the id of).
 */
export function idKey(id: string | number, raw: string): string {
  return typeof id === "string" ? `s${id}` : `n${idText(raw, id)}`;
}

/** The id of a message as its sender wrote it (so a long integer keeps its digits). */
export function idText(raw: string, id: JsonValue): string {
  const span = valueSpan(raw, ["id"]);
  return span === undefined ? JSON.stringify(id) : raw.slice(span[0], span[1]);
}

/** An id as the server wrote it, shortened: it is server data (the reporter makes it visible). */
function show(id: JsonValue, raw: string): string {
  const text = typeof id === "number" ? idText(raw, id) : JSON.stringify(id);
  return text.length > 40 ? `${text.slice(0, 40)}...` : text;
}
