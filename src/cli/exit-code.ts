import { isContractpinError } from "../core/errors.js";

/** Exit codes: the API CI relies on (spec 6). */
export const EXIT = {
  /** Every selected server matches the lock. */
  OK: 0,
  /** Drift, or a pinned server could not be read. */
  DRIFT: 1,
  /** contractpin could not run: bad arguments, bad input, missing or corrupt lock. */
  ERROR: 2,
} as const;

/**
 * The one place that turns a thrown error into an exit code and a line for
 * stderr. A ContractpinError is expected: its message is the line. Anything
 * else is a bug in contractpin: say so, and show the stack only under
 * CONTRACTPIN_DEBUG.
 */
export function exitForError(err: unknown, debug: boolean): { code: number; message: string } {
  if (isContractpinError(err)) {
    return { code: EXIT.ERROR, message: `contractpin: ${err.message}` };
  }
  const detail =
    err instanceof Error ? (debug ? (err.stack ?? err.message) : err.message) : String(err);
  const hint = debug ? "" : " (set CONTRACTPIN_DEBUG=1 for a stack trace)";
  return { code: EXIT.ERROR, message: `contractpin: internal error: ${detail}${hint}` };
}
