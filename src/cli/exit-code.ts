import { isContractpinError, type ErrorCode } from "../core/errors.js";
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
 * The signals that interrupt a command: Ctrl-C, SIGTERM, and SIGHUP (the
 * terminal or the client that ran it went away). Each is exit 2, after every
 * server the command started is ended (main.ts).
 */
export const INTERRUPTS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

/** One of the exit codes of {@link EXIT}. */
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

const { DRIFT, ERROR } = EXIT;

/**
 * The exit code of every error code, decided once. A `Record` over the whole
 * union: a code added to src/core/errors.ts does not compile until it is
 * given its exit code here. 1 is the server's or the registry's failure (it
 * could not be read, refused a login, did not answer): what CI must see as
 * "not verified". 2 is contractpin's: it could not run on what it was given.
 */
export const EXIT_FOR_CODE: Readonly<Record<ErrorCode, ExitCode>> = {
  // Strict JSON and canonical JSON: the input is not JSON contractpin can pin.
  JSON_SYNTAX: ERROR,
  JSON_TRAILING_CONTENT: ERROR,
  JSON_DUPLICATE_KEY: ERROR,
  JSON_LONE_SURROGATE: ERROR,
  JSON_NUMBER_OVERFLOW: ERROR,
  JSON_INVALID_UTF8: ERROR,
  JSON_TOO_DEEP: ERROR,
  CANON_NON_FINITE_NUMBER: ERROR,
  CANON_LONE_SURROGATE: ERROR,
  CANON_UNSUPPORTED_TYPE: ERROR,
  CANON_NON_PLAIN_OBJECT: ERROR,
  CANON_ARRAY_HOLE: ERROR,
  CANON_TOO_DEEP: ERROR,
  CANON_TOO_LARGE: ERROR,
  CANON_WRITE_FAILED: ERROR,
  // A list with no contract, from a dump or a file named on the command line
  // (a live server's is read as SERVER_UNREADABLE, or reported unreachable).
  TOOL_NOT_OBJECT: ERROR,
  TOOL_NAME_INVALID: ERROR,
  TOOLS_DUPLICATE_NAME: ERROR,
  DUMP_INVALID: ERROR,
  PROMPT_NOT_OBJECT: ERROR,
  PROMPT_NAME_INVALID: ERROR,
  PROMPTS_DUPLICATE_NAME: ERROR,
  TEMPLATE_NOT_OBJECT: ERROR,
  TEMPLATE_URI_INVALID: ERROR,
  TEMPLATES_DUPLICATE_URI: ERROR,
  RESOURCE_NOT_OBJECT: ERROR,
  RESOURCE_URI_INVALID: ERROR,
  RESOURCES_DUPLICATE_URI: ERROR,
  // The lock and its writing.
  LOCK_MISSING: ERROR,
  LOCK_CORRUPT: ERROR,
  LOCK_VERSION_UNSUPPORTED: ERROR,
  LOCK_ALGORITHM_UNSUPPORTED: ERROR,
  LOCK_CANONICALIZATION_UNSUPPORTED: ERROR,
  LOCK_EXISTS: ERROR,
  LOCK_WRITE_FAILED: ERROR,
  LOCK_CHANGED: ERROR,
  LOCK_BUSY: ERROR,
  LOCK_EMPTY: ERROR,
  // A server's definition, and reading the server.
  SECRET_IN_DEFINITION: ERROR,
  ENV_UNSET: ERROR,
  ENV_NOT_ALLOWED: ERROR,
  SOURCE_INVALID: ERROR,
  SERVER_UNREADABLE: DRIFT,
  HTTP_REDIRECT_REFUSED: ERROR,
  // OAuth: a server that refused or needs a login is the server's failure.
  AUTH_REQUIRED: DRIFT,
  AUTH_FAILED: DRIFT,
  CREDENTIAL_STORE: ERROR,
  // Client configs.
  CONFIG_INVALID: ERROR,
  CONFIG_CONFLICT: ERROR,
  CONFIG_CHANGED: ERROR,
  // A registry that could not be asked: the look-up was not done.
  REGISTRY_UNREACHABLE: DRIFT,
  // The command line.
  USAGE: ERROR,
  INPUT_UNREADABLE: ERROR,
  SERVER_UNKNOWN: ERROR,
  INTERRUPTED: ERROR,
  REPORT_WRITE_FAILED: ERROR,
  WRITE_REFUSED: ERROR,
  AUDIT_INCOMPLETE: ERROR,
};

/**
 * The exit code of an error code; a code outside the union (a
 * `ContractpinError<string>` built from a library's error) is 2.
 */
export function exitForCode(code: string): ExitCode {
  return Object.hasOwn(EXIT_FOR_CODE, code) ? EXIT_FOR_CODE[code as ErrorCode] : ERROR;
}

/**
 * The one place that turns a thrown error into an exit code and a line for
 * stderr. A ContractpinError is expected: its message is the line, and its
 * code decides the exit ({@link EXIT_FOR_CODE}). Anything else is a bug in
 * contractpin: say so, and show the stack only under CONTRACTPIN_DEBUG.
 */
export function exitForError(err: unknown, debug: boolean): { code: number; message: string } {
  if (isContractpinError(err)) {
    const detail = ((err as { detail?: string[] }).detail ?? [])
      .map((line) => `\n  | ${sanitizeLine(line)}`)
      .join("");
    return {
      code: exitForCode(err.code),
      message: `contractpin: ${sanitizeLine(err.message)}${detail}`,
    };
  }
  const detail =
    err instanceof Error ? (debug ? (err.stack ?? err.message) : err.message) : String(err);
  const hint = debug ? "" : " (set CONTRACTPIN_DEBUG=1 for a stack trace)";
  return { code: ERROR, message: `contractpin: internal error: ${detail}${hint}` };
}
