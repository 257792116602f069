import type { CiFlow, CiTarget } from "./ci-flow.js";
import { createPrivateKey, type KeyObject } from "node:crypto";
import {
  AuthorizationServerMismatchError,
  ClientCredentialsProvider,
  PrivateKeyJwtProvider,
  auth,
  type OAuthClientProvider,
  type StoredOAuthTokens,
} from "@modelcontextprotocol/client";
import { ContractpinError } from "../core/errors.js";
import { referencedName, type HttpAuth } from "../core/source/server-auth.js";
import { expandReferences } from "../core/source/server-source.js";
import { visibleText } from "../core/visible-text.js";
import { authFetch } from "./auth-fetch.js";
import { quietLibraryWarnings } from "./library-warnings.js";
import { pinnedResource } from "./resource-pin.js";
import { EnvRefreshProvider } from "./env-refresh.js";

/**
 * The non-interactive flow an `auth` member names, its references expanded
 * from `env` now (so a missing credential fails the server at once, in one
 * line), or undefined for `login` (the stored credential).
 *
 * @throws ContractpinError ENV_UNSET naming the variable.
 */
export function ciFlow(
  spec: HttpAuth | undefined,
  env: Readonly<Record<string, string | undefined>>,
): CiFlow | undefined {
  if (spec === undefined || spec.mode === "login") return undefined;
  const expand = (key: "client_id" | "client_secret" | "refresh_token" | "private_key") =>
    spec[key] === undefined ? undefined : expandReferences(spec[key], env, `auth ${key}`);
  const clientSecret = expand("client_secret");
  const refreshToken = expand("refresh_token");
  const privateKey = expand("private_key");
  return {
    mode: spec.mode,
    issuer: spec.issuer!,
    clientId: expand("client_id")!,
    ...(clientSecret === undefined ? {} : { clientSecret }),
    ...(refreshToken === undefined ? {} : { refreshToken }),
    ...(privateKey === undefined ? {} : { privateKey }),
    ...(spec.refresh_token === undefined
      ? {}
      : { refreshVariable: referencedName(spec.refresh_token)! }),
  };
}

/** What the server's challenge said: where its metadata is, and the scope to ask for. */
export interface ChallengeHints {
  /** The protected resource metadata URL the challenge named (default: the well-known ones). */
  resourceMetadataUrl?: URL;
  /** The scopes to ask for (default: what the server's metadata advertises). */
  scope?: string;
}

/**
 * Gets access tokens for `target` by `flow`, through the auth fetch (never
 * the tap), from the lock's issuer only: the library refuses another
 * authorization server before the secret or refresh token is sent. Each call
 * asks the authorization server anew. A refresh token flow keeps its
 * provider across calls, so that a second call presents the rotated refresh
 * token (the one from the environment is dead once rotated); a rotated one
 * is written to `--oauth-state-out` before the new access token is used, and
 * without that option the server fails (the new refresh token would be lost).
 */
export function ciTokenSource(
  flow: CiFlow,
  target: CiTarget,
): (hints: ChallengeHints) => Promise<StoredOAuthTokens> {
  const refresh = flow.mode === "refresh_token" ? new EnvRefreshProvider(target, flow) : undefined;
  return async (hints) => {
    const provider = refresh ?? clientCredentials(target.resource, flow);
    const result = await authorize(provider, target.url, hints).catch((err: unknown) => {
      // The generic wording (src/auth/auth-error.ts) says to log in again, which
      // cannot help here: the issuer is the lock's, so the lock is what to fix.
      if (!(err instanceof AuthorizationServerMismatchError)) throw err;
      throw new ContractpinError(
        "AUTH_FAILED",
        `the server names the authorization server ${visibleText(err.currentIssuer)}, not the ` +
          `lock's auth issuer ${visibleText(flow.issuer)}: nothing was sent to it (if it is the ` +
          "right one, change the issuer in the lock's auth member)",
      );
    });
    const tokens = await provider.tokens();
    if (result !== "AUTHORIZED" || !tokens?.access_token) {
      throw new ContractpinError("AUTH_FAILED", "the authorization server issued no access token");
    }
    return tokens;
  };
}

/**
 * The library's `auth()` for a server that cannot wait for a person: with the
 * challenge's hints, through the auth fetch (never the tap), the library's
 * warnings sanitised and its note that it retries left out (the failure that
 * follows says it).
 */
export function authorize(
  provider: OAuthClientProvider,
  serverUrl: URL,
  hints: ChallengeHints,
): ReturnType<typeof auth> {
  return quietLibraryWarnings(
    () =>
      auth(provider, {
        serverUrl,
        ...(hints.resourceMetadataUrl === undefined
          ? {}
          : { resourceMetadataUrl: hints.resourceMetadataUrl }),
        ...(hints.scope === undefined ? {} : { scope: hints.scope }),
        fetchFn: authFetch(),
      }),
    true,
  );
}

/**
 * The library's client_credentials provider (a client secret, or
 * private_key_jwt), bound to the lock's issuer, its resource indicator pinned
 * like a stored login's.
 */
function clientCredentials(resource: string, flow: CiFlow): OAuthClientProvider {
  const common = {
    clientId: flow.clientId,
    clientName: "contractpin",
    expectedIssuer: flow.issuer,
  };
  const provider: OAuthClientProvider =
    flow.privateKey === undefined
      ? new ClientCredentialsProvider({ ...common, clientSecret: flow.clientSecret! })
      : new PrivateKeyJwtProvider({ ...common, ...signingKey(flow.privateKey) });
  provider.validateResourceURL = async (serverUrl, advertised) =>
    pinnedResource(resource, serverUrl, advertised);
  return provider;
}

/**
 * A PEM private key as PKCS#8 and the JWS algorithm its type implies: RS256
 * for RSA, ES256 or ES384 for EC P-256 or P-384.
 *
 * @throws ContractpinError AUTH_FAILED for a key that is not one of these (never quoting it).
 */
function signingKey(pem: string): { privateKey: string; algorithm: string } {
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch {
    throw new ContractpinError("AUTH_FAILED", "auth private_key is not a PEM private key");
  }
  const curve = key.asymmetricKeyDetails?.namedCurve;
  const algorithm =
    key.asymmetricKeyType === "rsa"
      ? "RS256"
      : curve === "prime256v1"
        ? "ES256"
        : curve === "secp384r1"
          ? "ES384"
          : undefined;
  if (algorithm === undefined) {
    throw new ContractpinError(
      "AUTH_FAILED",
      "auth private_key must be an RSA or EC P-256/P-384 private key",
    );
  }
  return { privateKey: key.export({ type: "pkcs8", format: "pem" }).toString(), algorithm };
}
