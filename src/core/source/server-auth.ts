import { ContractpinError, type ErrorCode } from "../errors.js";
import { getMember, isJsonObject, pathKey, type JsonValue } from "../json/json-value.js";

/**
 * The `auth` member of an http server in the lock: how the server
 * authenticates, never a secret. Secrets are `${VAR}` references only.
 */

/** How an http server authenticates. */
export const AUTH_MODES = ["client_credentials", "refresh_token", "login"] as const;
export type AuthMode = (typeof AUTH_MODES)[number];

/** An http server's `auth` member, as the lock holds it (snake_case, as written). */
export interface HttpAuth {
  mode: AuthMode;
  /** The authorization server the credential may go to (its issuer): the only one. */
  issuer?: string;
  /** A pre-registered client (a literal, or a `${VAR}` reference). */
  client_id?: string;
  /** `${VAR}`: the variable that holds the client's secret. */
  client_secret?: string;
  /** `${VAR}`: the variable that holds a refresh token (refresh_token mode). */
  refresh_token?: string;
  /** `${VAR}`: the variable that holds the client's private key, PEM (private_key_jwt). */
  private_key?: string;
}

/** The members that hold secrets: each must be exactly one `${VAR}` reference. */
export const AUTH_SECRETS = ["client_secret", "refresh_token", "private_key"] as const;

const ONE_REFERENCE = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/;
const KEYS: Record<AuthMode, { required: string[]; optional: string[] }> = {
  // With exactly one of client_secret and private_key.
  client_credentials: {
    required: ["issuer", "client_id"],
    optional: ["client_secret", "private_key"],
  },
  refresh_token: {
    required: ["issuer", "client_id", "refresh_token"],
    optional: ["client_secret"],
  },
  login: { required: [], optional: ["issuer", "client_id"] },
};

/** The variable a secret member refers to (`${NAME}` → NAME), or undefined for anything else. */
export function referencedName(value: string): string | undefined {
  return ONE_REFERENCE.exec(value)?.[1];
}

/** The strings of an `auth` member that are expanded when the server is read. */
export function authTemplates(auth: HttpAuth | undefined): string[] {
  if (auth === undefined) return [];
  return [auth.client_id, auth.client_secret, auth.refresh_token, auth.private_key].filter(
    (v): v is string => v !== undefined,
  );
}

/**
 * Checks an `auth` member (spec: SPEC.md 7) and returns it typed: a known
 * `mode`, the members that mode needs and no others (client_credentials:
 * exactly one of client_secret and private_key), an `issuer` that is an
 * https (or loopback http) URL, and each secret as exactly one `${VAR}`
 * reference. A literal secret is refused without being quoted.
 *
 * @param where the member's JSON path, for the one-line error.
 * @param code LOCK_CORRUPT for the lock reader; USAGE for the command line.
 * @throws ContractpinError `code`, prefixed by `prefix`.
 */
export function validateAuth(
  value: JsonValue,
  where: string,
  code: ErrorCode,
  prefix = "",
): HttpAuth {
  const fail = (key: string, problem: string): never => {
    throw new ContractpinError(
      code,
      `${prefix}${key === "" ? where : pathKey(where, key)} ${problem}`,
    );
  };
  if (!isJsonObject(value)) fail("", "must be an object");
  const obj = value as Record<string, JsonValue>;
  const mode = getMember(obj, "mode");
  if (typeof mode !== "string" || !(AUTH_MODES as readonly string[]).includes(mode)) {
    fail("mode", `must be one of ${AUTH_MODES.map((m) => `"${m}"`).join(", ")}`);
  }
  const keys = KEYS[mode as AuthMode];
  for (const key of Object.keys(obj)) {
    if (key !== "mode" && !keys.required.includes(key) && !keys.optional.includes(key)) {
      fail(key, `is not a member of auth mode "${mode as string}"`);
    }
  }
  const out: HttpAuth = { mode: mode as AuthMode };
  for (const key of [...keys.required, ...keys.optional]) {
    const v = getMember(obj, key);
    if (v === undefined) {
      if (keys.required.includes(key)) fail(key, `is required for auth mode "${mode as string}"`);
      continue;
    }
    if (typeof v !== "string" || v === "") fail(key, "must be a non-empty string");
    const text = v as string;
    if ((AUTH_SECRETS as readonly string[]).includes(key) && referencedName(text) === undefined) {
      fail(
        key,
        `must be a reference to an environment variable, such as "\${${key.toUpperCase()}}", never the secret itself`,
      );
    }
    if (key === "issuer" && issuerProblem(text) !== undefined) fail(key, issuerProblem(text)!);
    (out as unknown as Record<string, string>)[key] = text;
  }
  if (
    out.mode === "client_credentials" &&
    (out.client_secret === undefined) === (out.private_key === undefined)
  ) {
    fail("", 'of mode "client_credentials" needs exactly one of client_secret and private_key');
  }
  return out;
}

/** Why `text` cannot be an issuer, if it cannot: not an https URL (loopback http allowed). */
function issuerProblem(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return "must be the authorization server's issuer URL";
  }
  const loopback = ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname);
  if (url.protocol === "https:" || (url.protocol === "http:" && loopback)) {
    return url.username === "" && url.password === "" && url.search === "" && url.hash === ""
      ? undefined
      : "must be an issuer URL without user, password, query or fragment";
  }
  return "must be an https URL (or http on loopback)";
}
