import {
  SdkErrorCode,
  SdkHttpError,
  auth,
  extractWWWAuthenticateParams,
  resourceUrlFromServerUrl,
  type AuthProvider,
  type StoredOAuthTokens,
} from "@modelcontextprotocol/client";
import { ContractpinError } from "../core/errors.js";
import type { HttpSource } from "../core/server-source.js";
import type { ReadContext } from "../sources/read-tools.js";
import { authFailure } from "./auth-error.js";
import { authFetch } from "./auth-fetch.js";
import { ciAccessToken, ciFlow } from "./ci-auth.js";
import { quietLibraryWarnings } from "./library-warnings.js";
import { StoreBackedProvider } from "./provider.js";
import { openStore } from "./store.js";

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
 * The `authProvider` for the MCP transport of an HTTP read, or undefined when
 * the lock sends its own `Authorization` header. Nothing is looked up until
 * the server answers 401 with a `Bearer` challenge: then the credential stored
 * for this exact resource URL (and its issuer) is used, refreshed when it
 * expired (the new tokens saved first), and a server that needs a login that
 * has not happened fails with one line naming the command to run. A lock
 * whose `auth` member names a non-interactive flow (client_credentials, a
 * refresh token from the environment) gets its token by that flow instead
 * (src/auth/ci-auth.ts). OAuth traffic goes through its own `fetch`
 * ({@link authFetch}), never the tap.
 */
export function readAuthProvider(
  source: HttpSource,
  url: URL,
  ctx: ReadContext,
): AuthProvider | undefined {
  const headers = Object.keys(source.headers ?? {}).map((h) => h.toLowerCase());
  if (headers.includes("authorization")) {
    if (source.auth === undefined) return undefined;
    throw new ContractpinError(
      "SOURCE_INVALID",
      "the server has both an Authorization header and an auth member: give one or the other",
    );
  }
  const resource = resourceUrlFromServerUrl(url).href;
  // Under CI nobody can log in: name the non-interactive way too.
  const hint =
    loginHint(ctx.server, url) +
    (ctx.env.CI === "true"
      ? "; under CI, give the lock an auth member instead (contractpin add --help: --auth)"
      : "");
  // Expanded now: a missing secret fails the server before it is contacted.
  const flow = ciFlow(source.auth, ctx.env);
  let provider: StoreBackedProvider | undefined;
  let current: StoredOAuthTokens | undefined;
  let triedStored = false;
  return {
    token: async () => current?.access_token,
    onUnauthorized: async ({ response }) => {
      const challenge = response.headers.get("www-authenticate") ?? "";
      if (!/^\s*(bearer|dpop)\b/i.test(challenge)) {
        throw new SdkHttpError(SdkErrorCode.ClientHttpAuthentication, "HTTP 401", {
          status: 401,
          statusText: response.statusText,
        });
      }
      try {
        if (flow !== undefined) {
          if (triedStored) {
            throw new ContractpinError(
              "AUTH_FAILED",
              "the server refused the access token its authorization server issued",
            );
          }
          triedStored = true;
          const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(response);
          const token = await ciAccessToken(flow, {
            url,
            resource,
            ...(resourceMetadataUrl === undefined ? {} : { resourceMetadataUrl }),
            ...(scope === undefined ? {} : { scope }),
            ...(ctx.oauthStateOut === undefined ? {} : { stateOut: ctx.oauthStateOut }),
          });
          current = { access_token: token, token_type: "bearer" };
          return;
        }
        if (provider === undefined) {
          const issuer = source.auth?.issuer;
          provider = new StoreBackedProvider({
            store: openStore(ctx.env, ctx.warn),
            resource,
            loginHint: hint,
            ...(issuer === undefined ? {} : { expectedIssuer: issuer }),
            // Selects the library's refresh branch; a read never sends anyone
            // there (state() and the redirect fail first).
            redirectUrl: READ_REDIRECT,
          });
          await provider.load();
        }
        const stored = await provider.tokens();
        if (!triedStored && stored !== undefined && !expired(stored, provider.savedAt)) {
          triedStored = true;
          current = stored;
          return;
        }
        triedStored = true;
        if (stored === undefined) throw new ContractpinError("AUTH_REQUIRED", hint);
        const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(response);
        const result = await quietLibraryWarnings(() =>
          auth(provider!, {
            serverUrl: url,
            ...(resourceMetadataUrl === undefined ? {} : { resourceMetadataUrl }),
            ...(scope === undefined ? {} : { scope }),
            fetchFn: authFetch(),
          }),
        );
        if (result !== "AUTHORIZED") throw new ContractpinError("AUTH_REQUIRED", hint);
        current = await provider.tokens();
      } catch (err) {
        throw authFailure(err);
      }
    },
  };
}

function expired(tokens: StoredOAuthTokens, savedAt: number | undefined): boolean {
  if (tokens.expires_in === undefined || savedAt === undefined) return false;
  return savedAt + tokens.expires_in * 1000 - EXPIRY_MARGIN_MS <= Date.now();
}
