import { isContractpinError } from "../core/errors.js";
import { sanitizeLine } from "./render/style.js";

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
    // A server that could not be read while pinning, or refused a login, is the
    // server's failure (1), not contractpin's (2).
    const code = [
      "SERVER_UNREADABLE",
      "AUTH_FAILED",
      "AUTH_REQUIRED",
      "REGISTRY_UNREACHABLE",
    ].includes(err.code)
      ? EXIT.DRIFT
      : EXIT.ERROR;
    const detail = ((err as { detail?: string[] }).detail ?? [])
      .map((line) => `\n  | ${sanitizeLine(line)}`)
      .join("");
    return { code, message: `contractpin: ${sanitizeLine(err.message)}${detail}` };
  }
  const detail =
    err instanceof Error ? (debug ? (err.stack ?? err.message) : err.message) : String(err);
  const hint = debug ? "" : " (set CONTRACTPIN_DEBUG=1 for a stack trace)";
  return { code: EXIT.ERROR, message: `contractpin: internal error: ${detail}${hint}` };
}
