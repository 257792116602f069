import {
  AuthorizationServerMismatchError,
  type OAuthClientInformationContext,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
} from "@modelcontextprotocol/client";
import { ContractpinError } from "../core/errors.js";
import { registeredElsewhere } from "./registered-callback.js";
import { pinnedResource } from "./resource-pin.js";
import type { StoreBackedOptions } from "./provider-options.js";
import { latestEntry, readEntry, writeEntry } from "./store/store.js";

/**
 * An OAuthClientProvider whose tokens and client registration live in a
 * credential store, keyed by the MCP server's canonical resource URL and the
 * authorization server's issuer. It gives a credential only for that exact
 * resource and, once an issuer is known (stored or expected), refuses any
 * other authorization server before anything is sent to it: the library asks
 * for the client (and its secret) and the tokens before it registers,
 * refreshes or exchanges, and both throw AuthorizationServerMismatchError for
 * another issuer. Tokens are saved before the library returns them for use; a
 * save that fails fails the authorization.
 */
export class StoreBackedProvider implements OAuthClientProvider {
  private verifier: string | undefined;
  private discovery: OAuthDiscoveryState | undefined;
  private current: StoredOAuthTokens | undefined;
  private pinnedIssuer: string | undefined;
  private saved: number | undefined;
  /** A login's new registration, stored with its tokens (see saveClientInformation). */
  private registered: StoredOAuthClientInformation | undefined;

  constructor(private readonly options: StoreBackedOptions) {
    this.pinnedIssuer = options.expectedIssuer;
  }

  /** When the current tokens were saved (ms since the epoch), if known. */
  get savedAt(): number | undefined {
    return this.saved;
  }

  /** The issuer the credential is bound to, once known. */
  get issuer(): string | undefined {
    return this.pinnedIssuer;
  }

  get clientMetadataUrl(): string | undefined {
    return this.options.clientMetadataUrl;
  }

  get redirectUrl(): string | undefined {
    return this.options.redirectUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "contractpin",
      redirect_uris: this.options.redirectUrl === undefined ? [] : [this.options.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method:
        this.options.client?.clientSecret === undefined ? "none" : "client_secret_basic",
      ...(this.options.scope === undefined ? {} : { scope: this.options.scope }),
    };
  }

  /** A login's callback; a read has no `state`, and its redirect URL only selects a refresh. */
  private get loginCallback(): string | undefined {
    return this.options.state === undefined ? undefined : this.options.redirectUrl;
  }

  state(): string {
    if (this.options.state === undefined) throw this.loginRequired();
    return this.options.state;
  }

  /** Loads the issuer stored for the resource when none is expected: call once before a read. */
  async load(): Promise<void> {
    if (this.pinnedIssuer !== undefined) {
      const entry = await readEntry(this.options.store, this.options.resource, this.pinnedIssuer);
      this.current = entry?.tokens;
      this.saved = entry?.savedAt;
      return;
    }
    const latest = latestEntry(await this.options.store.read(this.options.resource));
    if (latest !== undefined) {
      this.pinnedIssuer = latest.issuer;
      this.current = latest.tokens;
      this.saved = latest.savedAt;
    }
  }

  private checkIssuer(ctx: OAuthClientInformationContext | undefined): string | undefined {
    if (ctx === undefined) return this.pinnedIssuer;
    if (this.pinnedIssuer !== undefined && ctx.issuer !== this.pinnedIssuer) {
      throw new AuthorizationServerMismatchError(this.pinnedIssuer, ctx.issuer);
    }
    return ctx.issuer;
  }

  async clientInformation(
    ctx?: OAuthClientInformationContext,
  ): Promise<StoredOAuthClientInformation | undefined> {
    const issuer = this.checkIssuer(ctx);
    const { client } = this.options;
    if (client !== undefined) {
      return {
        client_id: client.clientId,
        ...(client.clientSecret === undefined ? {} : { client_secret: client.clientSecret }),
        ...(issuer === undefined ? {} : { issuer }),
      };
    }
    if (issuer === undefined) return undefined;
    if (this.registered?.issuer === issuer) return this.registered;
    const stored = (await readEntry(this.options.store, this.options.resource, issuer))?.client;
    // A server that compares redirect URIs exactly would refuse this login's:
    // the library then registers anew, from clientMetadata alone (nothing of
    // the old client, its secret included, is sent).
    const callback = this.loginCallback;
    if (callback !== undefined && stored !== undefined && registeredElsewhere(stored, callback))
      return undefined;
    return stored;
  }

  async saveClientInformation(
    info: StoredOAuthClientInformation,
    ctx?: OAuthClientInformationContext,
  ): Promise<void> {
    const issuer = this.checkIssuer(ctx) ?? info.issuer;
    // A pre-registered client's secret stays in its variable, never in the store.
    if (issuer === undefined || this.options.client !== undefined) return;
    // Stored with the login's tokens: the stored client and tokens stay a pair
    // that refreshes, even when the person never comes back from the browser.
    if (this.loginCallback !== undefined) {
      this.registered = { ...info, issuer };
      return;
    }
    const { store, resource } = this.options;
    const entry = await readEntry(store, resource, issuer);
    await writeEntry(store, resource, issuer, { ...entry, resource, issuer, client: info });
  }

  async tokens(ctx?: OAuthClientInformationContext): Promise<StoredOAuthTokens | undefined> {
    const issuer = this.checkIssuer(ctx);
    if (ctx === undefined || issuer === undefined) return this.current;
    return (await readEntry(this.options.store, this.options.resource, issuer))?.tokens;
  }

  async saveTokens(tokens: StoredOAuthTokens, ctx?: OAuthClientInformationContext): Promise<void> {
    const issuer = this.checkIssuer(ctx) ?? tokens.issuer;
    if (issuer === undefined) {
      throw new ContractpinError(
        "AUTH_FAILED",
        "the authorization server has no issuer to bind the tokens to",
      );
    }
    const { store, resource } = this.options;
    const entry = await readEntry(store, resource, issuer);
    // The tokens are bound to the client that obtained them: a pre-registered
    // one is stored by its id alone (its secret stays in its variable), so that
    // a later refresh does not present them under another client's id.
    const pre = this.options.client;
    const client =
      pre !== undefined
        ? { client_id: pre.clientId }
        : this.registered?.issuer === issuer
          ? this.registered
          : entry?.client;
    const savedAt = Date.now();
    await writeEntry(store, resource, issuer, {
      resource,
      issuer,
      ...(client === undefined ? {} : { client }),
      tokens,
      savedAt,
    });
    // Used only once saved.
    this.pinnedIssuer = issuer;
    this.current = tokens;
    this.saved = savedAt;
  }

  async invalidateCredentials(
    scope: "all" | "client" | "tokens" | "verifier" | "discovery",
  ): Promise<void> {
    if (scope === "verifier") this.verifier = undefined;
    if (scope === "discovery") this.discovery = undefined;
    if ((scope !== "tokens" && scope !== "all") || this.pinnedIssuer === undefined) return;
    const { store, resource } = this.options;
    const entry = await readEntry(store, resource, this.pinnedIssuer);
    if (entry === undefined) return;
    const { tokens: _dropped, ...rest } = entry;
    await writeEntry(store, resource, this.pinnedIssuer, rest);
    this.current = undefined;
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    if (this.options.onAuthorizationUrl === undefined) throw this.loginRequired();
    await this.options.onAuthorizationUrl(url);
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    if (this.verifier === undefined) throw this.loginRequired();
    return this.verifier;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery;
  }

  /**
   * The resource indicator: the server's own canonical URL, and a protected
   * resource metadata `resource` only when it covers that URL.
   */
  async validateResourceURL(serverUrl: string | URL, resource?: string): Promise<URL | undefined> {
    return pinnedResource(this.options.resource, serverUrl, resource);
  }

  private loginRequired(): ContractpinError {
    return new ContractpinError("AUTH_REQUIRED", this.options.loginHint);
  }
}
