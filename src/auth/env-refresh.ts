import {
  AuthorizationServerMismatchError,
  type OAuthClientInformationContext,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
} from "@modelcontextprotocol/client";
import { ContractpinError } from "../core/errors.js";
import type { CiFlow, CiTarget } from "./ci-flow.js";
import { pinnedResource } from "./resource-pin.js";
import { writeOAuthState } from "./state-out.js";

// Selects the library's refresh branch; nobody is ever sent there.
const NO_REDIRECT = "http://127.0.0.1/callback";

/** A refresh token from the environment, bound to the lock's issuer and the server's resource. */
export class EnvRefreshProvider implements OAuthClientProvider {
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
    // An authorization server that does not rotate may leave the refresh token
    // out: the one presented stays the one to present next time.
    const presented = this.saved?.refresh_token ?? this.flow.refreshToken;
    this.saved =
      tokens.refresh_token === undefined && presented !== undefined
        ? { ...tokens, refresh_token: presented }
        : tokens;
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
