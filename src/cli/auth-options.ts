import type { ContractpinError } from "../core/errors.js";
import { validateAuth, type HttpAuth } from "../core/source/server-auth.js";

/** The options of `add --url` that write the lock's `auth` member (the names `login` uses). */
export const AUTH_OPTIONS = {
  auth: { type: "string" },
  issuer: { type: "string" },
  "client-id": { type: "string" },
  "client-secret-env": { type: "string" },
  "refresh-token-env": { type: "string" },
  "private-key-env": { type: "string" },
} as const;

export const AUTH_HELP = `  --auth MODE          how the server authorizes, written to the lock's auth member:
                       client_credentials (needs --issuer, --client-id and
                       --client-secret-env or --private-key-env), refresh_token (needs --issuer, --client-id
                       and --refresh-token-env; --client-secret-env optional), or login
                       (a stored 'contractpin login'; --issuer, --client-id optional)
  --issuer URL         the authorization server's issuer: the only one that gets the secret
  --client-id ID       the pre-registered client
  --client-secret-env VAR   the variable that holds the client's secret (never the secret)
  --refresh-token-env VAR   the variable that holds a refresh token (never the token)
  --private-key-env VAR     the variable that holds the client's private key (PEM, RSA
                       or EC P-256/P-384), for private_key_jwt instead of a secret`;

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The `auth` member the options describe, or undefined without `--auth`.
 * Each `-env` option names a variable, written as its `${VAR}` reference.
 *
 * @throws the caller's usage error for a bad combination, never quoting a value.
 */
export function authFromOptions(
  values: { [K in keyof typeof AUTH_OPTIONS]?: string | undefined },
  usage: (message: string) => ContractpinError,
): HttpAuth | undefined {
  const mode = values.auth;
  if (mode === undefined) {
    const stray = Object.keys(AUTH_OPTIONS).find(
      (k) => values[k as keyof typeof AUTH_OPTIONS] !== undefined,
    );
    if (stray !== undefined) throw usage(`--${stray} needs --auth MODE`);
    return undefined;
  }
  const member: Record<string, string> = { mode };
  const set = (key: string, value: string | undefined) => {
    if (value !== undefined) member[key] = value;
  };
  set("issuer", values.issuer);
  set("client_id", values["client-id"]);
  for (const [option, key] of [
    ["client-secret-env", "client_secret"],
    ["refresh-token-env", "refresh_token"],
    ["private-key-env", "private_key"],
  ] as const) {
    const name = values[option];
    if (name === undefined) continue;
    if (!NAME.test(name)) throw usage(`--${option} takes the name of a variable, not its value`);
    member[key] = `\${${name}}`;
  }
  const flag: Record<string, string> = {
    issuer: "--issuer",
    client_id: "--client-id",
    client_secret: "--client-secret-env",
    refresh_token: "--refresh-token-env",
    private_key: "--private-key-env",
    mode: "--auth",
  };
  try {
    return validateAuth(member, "auth", "USAGE");
  } catch (err) {
    // "auth.client_id is required ..." → "--client-id is required ...".
    const text = (err as Error).message.replace(
      /^auth\.(\w+)/,
      (_, key: string) => flag[key] ?? key,
    );
    throw usage(
      text
        .replace(/\bauth mode\b/, "--auth")
        .replace(
          /^auth of mode "(\w+)" needs exactly one of client_secret and private_key/,
          "--auth $1 needs exactly one of --client-secret-env and --private-key-env",
        ),
    );
  }
}
