import { isContractpinError, type WithDetail } from "../core/errors.js";
import type { Redact } from "../core/source/redact.js";

/** Kept here for importers; the type lives in core, so that sources need not import the engine. */
export type { WithDetail } from "../core/errors.js";

/**
 * One line (and any detail lines) that say why a server could not be read or
 * pinned, each passed through `redact`.
 */
export function failureLines(
  err: unknown,
  redact: Redact = (text) => text,
): { message: string; detail: string[] } {
  const detail = ((err as WithDetail | undefined)?.detail ?? []).map(redact);
  if (isContractpinError(err)) return { message: bounded(redact(err.message)), detail };
  const message = err instanceof Error ? err.message : String(err);
  return { message: bounded(redact(`internal error: ${message}`)), detail };
}

/** The longest failure message shown whole, in UTF-16 units. */
const MAX_FAILURE_CHARS = 2000;

/**
 * A message cut in the middle when it is longer than MAX_FAILURE_CHARS. Its
 * text is often the server's own (a JSON-RPC error message, a cursor), and a
 * hostile server could otherwise put up to a whole message (64 MiB) into one
 * line of every report and CI log. Cut after redaction, so that no part of a
 * secret is left; never inside a surrogate pair.
 */
function bounded(message: string): string {
  if (message.length <= MAX_FAILURE_CHARS) return message;
  const head = unsplit(message, 1500, -1);
  const tail = unsplit(message, message.length - 400, 1);
  const left = tail - head;
  return `${message.slice(0, head)} … (${left} characters left out) … ${message.slice(tail)}`;
}

/** `at`, moved by `step` when it falls between the two halves of a surrogate pair. */
function unsplit(text: string, at: number, step: 1 | -1): number {
  const before = text.charCodeAt(at - 1);
  const after = text.charCodeAt(at);
  const inPair = before >= 0xd800 && before <= 0xdbff && after >= 0xdc00 && after <= 0xdfff;
  return inPair ? at + step : at;
}
