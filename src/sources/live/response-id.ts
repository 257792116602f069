import type { JsonValue } from "../../core/json/json-value.js";

/**
 * Whether a client built on the official MCP library could take a response
 * with `responseId` for the answer to a request sent with `requestId`.
 *
 * The library matches a response by `Number(response.id)` against the
 * numbers it gives its requests (`Protocol._onresponse`, keyed by
 * `_requestMessageId++`), so not only `1` but `"1"`, `" 1"`, `"1.0"`,
 * `"1e0"`, `"0x1"` and `"+1"` answer request 1, and `""` or `"-0"` answer
 * request 0. Booleans count too (`Number(true)` is 1: a client in another
 * language may compare them so), although the library's schema refuses them.
 * An id of any other kind (an object, an array) or one that is no number at
 * all (`"srv-ping-0"`, `Number` gives NaN) matches only itself.
 *
 * Pure, for every peer that keeps a table of requests it sent (the read's
 * RawLog, a proxy's accounting).
 */
export function mayAnswer(responseId: JsonValue, requestId: string | number): boolean {
  if (responseId === requestId) return true;
  const n = looseNumber(responseId);
  return n !== undefined && n === looseNumber(requestId);
}

/**
 * Whether `responseId` could answer a request the client has not sent yet,
 * when the client numbers its requests 0, 1, 2, ... (the official library
 * does, afresh on each connection): its number is a whole number above
 * `highestSent` (-1 before any request).
 */
export function mayAnswerLater(responseId: JsonValue, highestSent: number): boolean {
  const n = looseNumber(responseId);
  return n !== undefined && Number.isInteger(n) && n > highestSent;
}

/** The number the library matches an id as; undefined when it matches no number. */
function looseNumber(id: JsonValue): number | undefined {
  if (typeof id !== "string" && typeof id !== "number" && typeof id !== "boolean") return undefined;
  const n = Number(id);
  return Number.isNaN(n) ? undefined : n;
}
