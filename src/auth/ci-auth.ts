import { createPrivateKey, type KeyObject } from "node:crypto";
import {
  AuthorizationServerMismatchError,
  ClientCredentialsProvider,
  PrivateKeyJwtProvider,
  auth,
  type OAuthClientInformationContext,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
} from "@modelcontextprotocol/client";
import { ContractpinError } from "../core/errors.js";
import { referencedName, type HttpAuth } from "../core/server-auth.js";
import { expandReferences } from "../core/server-source.js";
import { authFetch } from "./auth-fetch.js";
import { quietLibraryWarnings } from "./library-warnings.js";
import { pinnedResource } from "./provider.js";
import { writeOAuthState } from "./state-out.js";

/** A non-interactive flow of the lock's `auth` member, its secrets expanded. */
export interface CiFlow {
  mode: "client_credentials" | "refresh_token";
  issuer: string;
  clientId: string;
  clientSecret?: string;
  refreshToken?: string;
  /** A PEM private key (private_key_jwt, instead of a client secret). */
  privateKey?: string;
  /** The variable that holds the refresh token: its name in `--oauth-state-out`. */
  refreshVariable?: string;
}

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

/** Where the authorization runs: the server, its pinned resource, the challenge's hints. */
export interface CiTarget {
  url: URL;
  /** The server's canonical resource URL: the only one the token is for. */
  resource: string;
  resourceMetadataUrl?: URL;
  scope?: string;
  /** `--oauth-state-out FILE`, for a rotated refresh token. */
  stateOut?: string;
}

/**
 * Gets an access token for `target` by `flow`, through the auth fetch (never
 * the tap), from the lock's issuer only: the library refuses another
 * authorization server before the secret or refresh token is sent. A
 * refresh token the authorization server rotates is written to
 * `--oauth-state-out` before the new access token is used; without that
 * option the server fails (the new refresh token would be lost).
 */
export async function ciAccessToken(flow: CiFlow, target: CiTarget): Promise<string> {
  const provider =
    flow.mode === "refresh_token"
      ? new EnvRefreshProvider(target, flow)
      : clientCredentials(target.resource, flow);
  const result = await quietLibraryWarnings(
    () =>
      auth(provider, {
        serverUrl: target.url,
        ...(target.resourceMetadataUrl === undefined
          ? {}
          : { resourceMetadataUrl: target.resourceMetadataUrl }),
        ...(target.scope === undefined ? {} : { scope: target.scope }),
        fetchFn: authFetch(),
      }),
    true,
  );
  const token = (await provider.tokens())?.access_token;
  if (result !== "AUTHORIZED" || !token) {
    throw new ContractpinError("AUTH_FAILED", "the authorization server issued no access token");
  }
  return token;
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

// Selects the library's refresh branch; nobody is ever sent there.
const NO_REDIRECT = "http://127.0.0.1/callback";

/** A refresh token from the environment, bound to the lock's issuer and the server's resource. */
class EnvRefreshProvider implements OAuthClientProvider {
  private saved: StoredOAuthTokens | undefined;
  // Set when the authorization server refused the refresh token: it is not sent again.
  private refused = false;

  constructor(
    private readonly target: CiTarget,
    private readonly flow: CiFlow,
  ) {}

  get redirectUrl(): string {
    return NO_REDIRECT;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "contractpin",
      redirect_uris: [NO_REDIRECT],
      grant_types: ["refresh_token"],
      token_endpoint_auth_method:
        this.flow.clientSecret === undefined ? "none" : "client_secret_basic",
    };
  }

  private check(ctx: OAuthClientInformationContext | undefined): void {
    if (ctx !== undefined && !sameIssuer(ctx.issuer, this.flow.issuer)) {
      throw new AuthorizationServerMismatchError(this.flow.issuer, ctx.issuer);
    }
  }

  clientInformation(ctx?: OAuthClientInformationContext): StoredOAuthClientInformation {
    this.check(ctx);
    return {
      client_id: this.flow.clientId,
      ...(this.flow.clientSecret === undefined ? {} : { client_secret: this.flow.clientSecret }),
      issuer: this.flow.issuer,
    };
  }

  tokens(ctx?: OAuthClientInformationContext): StoredOAuthTokens | undefined {
    this.check(ctx);
    if (this.saved !== undefined || this.refused) return this.saved;
    return {
      access_token: "",
      token_type: "bearer",
      refresh_token: this.flow.refreshToken!,
      issuer: this.flow.issuer,
    };
  }

  async saveTokens(tokens: StoredOAuthTokens, ctx?: OAuthClientInformationContext): Promise<void> {
    this.check(ctx);
    const rotated =
      tokens.refresh_token !== undefined && tokens.refresh_token !== this.flow.refreshToken;
    const name = this.flow.refreshVariable!;
    if (rotated && tokens.access_token !== "") {
      if (this.target.stateOut === undefined) {
        throw new ContractpinError(
          "AUTH_FAILED",
          `the authorization server rotated the refresh token in \${${name}}, and without ` +
            "--oauth-state-out FILE the new one would be lost: the old one may no longer work; " +
            "get a new one, and run with --oauth-state-out (see 'contractpin verify --help')",
        );
      }
      await writeOAuthState(this.target.stateOut, name, tokens.refresh_token!);
    }
    this.saved = tokens;
  }

  async validateResourceURL(serverUrl: string | URL, resource?: string): Promise<URL> {
    return pinnedResource(this.target.resource, serverUrl, resource);
  }

  invalidateCredentials(scope: string): void {
    if (scope === "tokens" || scope === "all") this.refused = true;
  }

  redirectToAuthorization(): never {
    throw new ContractpinError(
      "AUTH_FAILED",
      `the authorization server did not accept the refresh token in \${${this.flow.refreshVariable!}}`,
    );
  }

  saveCodeVerifier(): void {}

  codeVerifier(): never {
    return this.redirectToAuthorization();
  }
}

/** Issuers compared as the library compares them: equal, or equal but for a trailing `/`. */
function sameIssuer(a: string, b: string): boolean {
  return a === b || a.replace(/\/$/, "") === b.replace(/\/$/, "");
}
