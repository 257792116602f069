import {
  OAuthError,
  computeScopeUnion,
  extractWWWAuthenticateParams,
  resourceUrlFromServerUrl,
  type StoredOAuthTokens,
} from "@modelcontextprotocol/client";
import { ContractpinError } from "../core/errors.js";
import type { HttpSource } from "../core/source/server-source.js";
import type { ReadContext } from "../sources/read-tools.js";
import { authFailure } from "./auth-error.js";
import type { ResourceAuth } from "./authorized-fetch.js";
import { authorize, ciFlow, ciTokenSource, type ChallengeHints } from "./ci-auth.js";
import type { CiFlow } from "./ci-flow.js";
import { StoreBackedProvider } from "./provider.js";
import { stepUpRefused } from "./step-up.js";
import { openStore } from "./store/store.js";

// A token this close to its expiry is refreshed before use (ms).
const EXPIRY_MARGIN_MS = 10_000;
const READ_REDIRECT = "http://127.0.0.1/callback";

/**
 * The line that says a login is needed, naming the command: by the server's
 * lock name, and by URL for a server that is not in the lock yet (`add`, `init`).
 */
export function loginHint(server: string | undefined, url: URL): string {
  const byUrl = `contractpin login --url ${url.href}`;
  return server === undefined
    ? `the server needs an OAuth login: run '${byUrl}'`
    : `the server needs an OAuth login: run 'contractpin login ${server}' ` +
        `(for a server not in the lock yet: '${byUrl}')`;
}

/**
 * The OAuth side of an HTTP server's reads (verify, add, init, update, dump)
 * and of the guard's connection, or undefined when the lock sends its own
 * `Authorization` header. Nothing is looked up until the server answers 401
 * with a `Bearer` challenge: then the credential stored for this exact
 * resource URL (and its issuer) is used, or, when the lock's `auth` member
 * names a non-interactive flow, a token is got by that flow
 * (src/auth/ci-auth.ts). OAuth traffic goes through its own `fetch`
 * (src/auth/auth-fetch.ts), never the tap. Never a browser, never a prompt: a
 * server that needs a person fails with one line naming the command to run.
 *
 * @throws ContractpinError ENV_UNSET for a variable of the auth member that is not set.
 */
export function readAuth(source: HttpSource, url: URL, ctx: ReadContext): ResourceAuth | undefined {
  const headers = Object.keys(source.headers ?? {}).map((h) => h.toLowerCase());
  if (headers.includes("authorization")) {
    if (source.auth === undefined) return undefined;
    throw new ContractpinError(
      "SOURCE_INVALID",
      "the server has both an Authorization header and an auth member: give one or the other",
    );
  }
  // Under CI nobody can log in: name the non-interactive way too.
  const hint =
    loginHint(ctx.server, url) +
    (ctx.env.CI === "true"
      ? "; under CI, give the lock an auth member instead (contractpin add --help: --auth)"
      : "");
  // Expanded now: a missing secret fails the server before it is contacted.
  return new ReadAuth(source, url, ctx, hint, ciFlow(source.auth, ctx.env));
}

/**
 * One server's credential for one read or guard session. Bounded by design:
 * each token the authorization server issued in this session is tried once
 * (refused, it ends the session's authorization), a stored or earlier token
 * that the server refuses is renewed once (a refresh, or a new
 * client_credentials token), and the scope is stepped up at most once. A
 * failure stays: every later request gets the same error.
 */
class ReadAuth implements ResourceAuth {
  private readonly resource: string;
  private readonly ci: ((hints: ChallengeHints) => Promise<StoredOAuthTokens>) | undefined;
  private provider: StoreBackedProvider | undefined;
  private current: StoredOAuthTokens | undefined;
  // The current token came from the authorization server in this session and no request with it has been accepted yet.
  private fresh = false;
  private requestedScope: string | undefined;
  private steppedUp = false;
  private failure: ContractpinError<string> | undefined;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly source: HttpSource,
    private readonly url: URL,
    private readonly ctx: ReadContext,
    private readonly hint: string,
    private readonly flow: CiFlow | undefined,
  ) {
    this.resource = resourceUrlFromServerUrl(url).href;
    this.ci =
      flow === undefined
        ? undefined
        : ciTokenSource(flow, {
            url,
            resource: this.resource,
            ...(ctx.oauthStateOut === undefined ? {} : { stateOut: ctx.oauthStateOut }),
          });
  }

  async token(): Promise<string | undefined> {
    return this.current?.access_token;
  }

  accepted(sent: string | undefined): void {
    if (sent !== undefined && sent === this.current?.access_token) this.fresh = false;
  }

  unauthorized(response: Response, sent: string | undefined): Promise<void> {
    return this.serially(async () => {
      // Another request already replaced the token this one carried.
      if (sent !== this.current?.access_token) return;
      const hints = challenge(response);
      this.requestedScope = computeScopeUnion(this.requestedScope, hints.scope);
      if (this.ci !== undefined) {
        if (sent !== undefined && this.fresh) {
          throw new ContractpinError(
            "AUTH_FAILED",
            "the server refused the access token its authorization server issued",
          );
        }
        // Every scope asked for so far: a renewed token keeps a step-up's scope.
        const scope = this.requestedScope;
        return this.use(await this.ci({ ...hints, ...(scope === undefined ? {} : { scope }) }));
      }
      const provider = await this.storeProvider();
      const stored = await provider.tokens();
      if (stored === undefined) throw new ContractpinError("AUTH_REQUIRED", this.hint);
      if (sent === undefined && !expired(stored, provider.savedAt)) {
        this.current = stored;
        return;
      }
      // Expired, or refused (revoked) though not expired: one refresh, then a login.
      if (this.fresh || stored.refresh_token === undefined) {
        throw new ContractpinError("AUTH_REQUIRED", this.hint);
      }
      await this.refresh(provider, hints);
    });
  }

  insufficientScope(response: Response, sent: string | undefined): Promise<void> {
    return this.serially(async () => {
      if (sent !== this.current?.access_token) return;
      const hints = challenge(response);
      const scope = computeScopeUnion(this.requestedScope, this.current?.scope, hints.scope);
      const refused = stepUpRefused({
        scope,
        steppedUp: this.steppedUp,
        mode: this.flow?.mode ?? "login",
        server: this.ctx.server,
        url: this.url,
      });
      if (refused !== undefined) throw refused;
      this.steppedUp = true;
      this.requestedScope = scope;
      // Only client_credentials gets here: it asks again, for every scope so far.
      this.use(await this.ci!({ ...hints, ...(scope === undefined ? {} : { scope }) }));
    });
  }

  private use(tokens: StoredOAuthTokens): void {
    this.current = tokens;
    this.fresh = true;
  }

  private async storeProvider(): Promise<StoreBackedProvider> {
    if (this.provider === undefined) {
      const issuer = this.source.auth?.issuer;
      this.provider = new StoreBackedProvider({
        store: openStore(this.ctx.env, this.ctx.warn),
        resource: this.resource,
        loginHint: this.hint,
        ...(issuer === undefined ? {} : { expectedIssuer: issuer }),
        // Selects the library's refresh branch; a read never sends anyone
        // there (state() and the redirect fail first).
        redirectUrl: READ_REDIRECT,
      });
      await this.provider.load();
    }
    return this.provider;
  }

  /** The stored refresh token, once; the rotated tokens are saved before use. A refusal means a login. */
  private async refresh(provider: StoreBackedProvider, hints: ChallengeHints): Promise<void> {
    let result: string;
    try {
      const scope = this.requestedScope;
      result = await authorize(provider, this.url, {
        ...hints,
        ...(scope === undefined ? {} : { scope }),
      });
    } catch (err) {
      if (err instanceof OAuthError) throw new ContractpinError("AUTH_REQUIRED", this.hint);
      throw err;
    }
    const tokens = await provider.tokens();
    if (result !== "AUTHORIZED" || tokens === undefined) {
      throw new ContractpinError("AUTH_REQUIRED", this.hint);
    }
    this.use(tokens);
  }

  /** One authorization at a time (the guard sends concurrently); a failure stays. */
  private serially(work: () => Promise<void>): Promise<void> {
    const run = this.queue.then(async () => {
      if (this.failure !== undefined) throw this.failure;
      try {
        await work();
      } catch (err) {
        this.failure = authFailure(err);
        throw this.failure;
      }
    });
    this.queue = run.catch(() => undefined);
    return run;
  }
}

function challenge(response: Response): ChallengeHints {
  const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(response);
  return {
    ...(resourceMetadataUrl === undefined ? {} : { resourceMetadataUrl }),
    ...(scope === undefined ? {} : { scope }),
  };
}

function expired(tokens: StoredOAuthTokens, savedAt: number | undefined): boolean {
  if (tokens.expires_in === undefined || savedAt === undefined) return false;
  return savedAt + tokens.expires_in * 1000 - EXPIRY_MARGIN_MS <= Date.now();
}
