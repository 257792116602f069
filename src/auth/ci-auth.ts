import {
  AuthorizationServerMismatchError,
  ClientCredentialsProvider,
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
  const expand = (key: "client_id" | "client_secret" | "refresh_token") =>
    spec[key] === undefined ? undefined : expandReferences(spec[key], env, `auth ${key}`);
  const clientSecret = expand("client_secret");
  const refreshToken = expand("refresh_token");
  return {
    mode: spec.mode,
    issuer: spec.issuer!,
    clientId: expand("client_id")!,
    ...(clientSecret === undefined ? {} : { clientSecret }),
    ...(refreshToken === undefined ? {} : { refreshToken }),
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
  const provider: OAuthClientProvider & { current(): StoredOAuthTokens | undefined } =
    flow.mode === "client_credentials"
      ? new PinnedClientCredentials(target.resource, flow)
      : new EnvRefreshProvider(target, flow);
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
  const token = provider.current()?.access_token;
  if (result !== "AUTHORIZED" || !token) {
    throw new ContractpinError("AUTH_FAILED", "the authorization server issued no access token");
  }
  return token;
}

/** The library's client_credentials provider, its resource indicator pinned like a stored login's. */
class PinnedClientCredentials extends ClientCredentialsProvider {
  constructor(
    private readonly pinned: string,
    flow: CiFlow,
  ) {
    super({
      clientId: flow.clientId,
      clientSecret: flow.clientSecret!,
      clientName: "contractpin",
      expectedIssuer: flow.issuer,
    });
  }

  current(): StoredOAuthTokens | undefined {
    return this.tokens();
  }

  async validateResourceURL(serverUrl: string | URL, resource?: string): Promise<URL> {
    return pinnedResource(this.pinned, serverUrl, resource);
  }
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

  current(): StoredOAuthTokens | undefined {
    return this.saved;
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
