/**
 * Every error contractpin raises on purpose carries a stable code. Tests and
 * callers branch on the code, never on the wording; the CLI maps codes to exit
 * codes in one place (src/cli/exit-code.ts).
 */

/** Codes raised by the strict JSON parser (spec 3.3, 3.8). */
export type JsonErrorCode =
  | "JSON_SYNTAX"
  | "JSON_TRAILING_CONTENT"
  | "JSON_DUPLICATE_KEY"
  | "JSON_LONE_SURROGATE"
  | "JSON_NUMBER_OVERFLOW"
  | "JSON_INVALID_UTF8"
  | "JSON_TOO_DEEP";

/** Codes raised by the canonicalizer for values that are not JSON (spec 3.8). */
export type CanonicalErrorCode =
  | "CANON_NON_FINITE_NUMBER"
  | "CANON_LONE_SURROGATE"
  | "CANON_UNSUPPORTED_TYPE"
  | "CANON_NON_PLAIN_OBJECT"
  | "CANON_ARRAY_HOLE"
  | "CANON_TOO_DEEP"
  | "CANON_TOO_LARGE"
  | "CANON_WRITE_FAILED";

/** Codes raised while turning tools/list data into contracts and digests (spec 2, 4). */
export type ToolsErrorCode =
  "TOOL_NOT_OBJECT" | "TOOL_NAME_INVALID" | "TOOLS_DUPLICATE_NAME" | "DUMP_INVALID";

/** Codes raised while turning prompts, resource templates and resources into contracts (SPEC.md 10). */
export type SurfaceErrorCode =
  | "PROMPT_NOT_OBJECT"
  | "PROMPT_NAME_INVALID"
  | "PROMPTS_DUPLICATE_NAME"
  | "TEMPLATE_NOT_OBJECT"
  | "TEMPLATE_URI_INVALID"
  | "TEMPLATES_DUPLICATE_URI"
  | "RESOURCE_NOT_OBJECT"
  | "RESOURCE_URI_INVALID"
  | "RESOURCES_DUPLICATE_URI";

/** Codes raised when reading or writing the lock (spec 5): each is exit 2. */
export type LockErrorCode =
  | "LOCK_MISSING"
  | "LOCK_CORRUPT"
  | "LOCK_VERSION_UNSUPPORTED"
  | "LOCK_ALGORITHM_UNSUPPORTED"
  | "LOCK_CANONICALIZATION_UNSUPPORTED"
  | "LOCK_EXISTS"
  | "LOCK_WRITE_FAILED"
  | "LOCK_CHANGED"
  | "LOCK_BUSY"
  | "LOCK_EMPTY";

/** Codes raised for a server definition: a secret that would be written, a reference that cannot be expanded. */
export type SourceErrorCode =
  | "SECRET_IN_DEFINITION"
  | "ENV_UNSET"
  | "ENV_NOT_ALLOWED"
  | "SOURCE_INVALID"
  | "SERVER_UNREADABLE"
  | "HTTP_REDIRECT_REFUSED";

/**
 * Codes raised by OAuth (src/auth): a server that needs a login that has not
 * happened (AUTH_REQUIRED), an authorization that failed or went to the wrong
 * place (AUTH_FAILED), a credential store that cannot be read or written
 * (CREDENTIAL_STORE, exit 2).
 */
export type AuthErrorCode = "AUTH_REQUIRED" | "AUTH_FAILED" | "CREDENTIAL_STORE";

/** Codes raised when importing MCP client config files (each is exit 2). */
export type ConfigErrorCode = "CONFIG_INVALID" | "CONFIG_CONFLICT" | "CONFIG_CHANGED";

/** Codes raised when a package registry is asked for versions (outdated, upgrade; exit 1). */
export type RegistryErrorCode = "REGISTRY_UNREACHABLE";

/** Codes raised at the edges: the command line and the files it names. */
export type CliErrorCode =
  | "USAGE"
  | "INPUT_UNREADABLE"
  | "SERVER_UNKNOWN"
  | "INTERRUPTED"
  | "REPORT_WRITE_FAILED"
  | "WRITE_REFUSED"
  | "AUDIT_INCOMPLETE";

export type ErrorCode =
  | JsonErrorCode
  | CanonicalErrorCode
  | ToolsErrorCode
  | SurfaceErrorCode
  | LockErrorCode
  | SourceErrorCode
  | AuthErrorCode
  | ConfigErrorCode
  | RegistryErrorCode
  | CliErrorCode;

/** An expected failure with a stable machine-readable code. */
export class ContractpinError<C extends string = ErrorCode> extends Error {
  /** Stable identifier of what went wrong. */
  readonly code: C;

  constructor(code: C, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ContractpinError";
    this.code = code;
  }
}

/** True when `err` is a ContractpinError (optionally with one of `codes`). */
export function isContractpinError(
  err: unknown,
  ...codes: string[]
): err is ContractpinError<string> {
  return err instanceof ContractpinError && (codes.length === 0 || codes.includes(err.code));
}

/** An error that carries extra lines for people, such as a server's last stderr lines. */
export interface WithDetail {
  detail?: string[];
}
