import { randomBytes } from "node:crypto";
import {
  auth,
  extractWWWAuthenticateParams,
  resourceUrlFromServerUrl,
  type FetchLike,
} from "@modelcontextprotocol/client";
import { ContractpinError } from "../core/errors.js";
import { visibleText } from "../core/visible-text.js";
import { authFailure } from "./auth-error.js";
import { authFetch } from "./auth-fetch.js";
import { mayOpen, openBrowser } from "./browser.js";
import { quietLibraryWarnings } from "./library-warnings.js";
import type { ClientIdentity } from "./provider-options.js";
import { StoreBackedProvider } from "./provider.js";
import { listenForLogin } from "./registered-callback.js";
import { openStore } from "./store/store.js";

/** What a login needs. */
export interface LoginOptions {
  /** The MCP server's URL, its references expanded. */
  url: URL;
  /** How the server is named in messages (its lock name, or its URL). */
  shown: string;
  env: Readonly<Record<string, string | undefined>>;
  /**
   * The callback's port on 127.0.0.1 (0: a free one). Default: the port of
   * the client registered at an earlier login, else a free one.
   */
  callbackPort?: number;
  /** A pre-registered client; without one, a client ID metadata document or dynamic registration. */
  client?: ClientIdentity;
  /** The https URL of a client ID metadata document, used where the authorization server supports them. */
  clientMetadataUrl?: string;
  scope?: string;
  /** Whether to try to open a browser (default true; never under CI). */
  browser?: boolean;
  /** How long to wait for the person (ms). */
  timeoutMs: number;
  /** Receives each line for the person (the authorization URL among them). */
  say: (line: string) => Promise<void>;
  /** Receives a warning line (the credential store's fall-back to the file). */
  warn?: (message: string) => void;
  signal?: AbortSignal;
}

/**
 * Logs in to an MCP server with the authorization-code flow and PKCE: a
 * callback listener on 127.0.0.1, a random `state` that contractpin checks,
 * the authorization URL always printed (and opened in a browser where one
 * can be), the client identified in the spec's order (a pre-registered
 * client, then a client ID metadata document where the authorization server
 * supports one, then dynamic registration, all three the library's), and the
 * tokens saved in the credential store under the server's canonical resource
 * URL and the issuer. Refuses at once under CI or without a terminal.
 *
 * @returns the issuer and where the credential was stored.
 */
export async function login(options: LoginOptions): Promise<{ issuer: string; where: string }> {
  if (options.env.CI === "true" || !process.stdout.isTTY) {
    throw new ContractpinError(
      "USAGE",
      `login needs a person at a terminal (${options.env.CI === "true" ? "CI is true" : "stdout is not a terminal"}); ` +
        "in CI, send a pre-obtained token as a header that refers to a variable (see 'contractpin login --help')",
    );
  }
  const store = openStore(options.env, options.warn);
  // Before anyone is sent to the browser: tokens obtained would otherwise be lost.
  await store.ready();
  const state = randomBytes(32).toString("base64url");
  const resource = resourceUrlFromServerUrl(options.url).href;
  const listener = await listenForLogin({
    store,
    resource,
    state,
    ...(options.callbackPort === undefined ? {} : { callbackPort: options.callbackPort }),
    onBusy: (port) =>
      options.say(
        `The client registered at an earlier login is called back on port ${port}, ` +
          "which is in use: registering a new client.\n",
      ),
  });
  const provider = new StoreBackedProvider({
    store,
    resource,
    redirectUrl: listener.redirectUrl,
    state,
    loginHint: "the login did not reach the authorization step",
    ...(options.client === undefined ? {} : { client: options.client }),
    ...(options.clientMetadataUrl === undefined
      ? {}
      : { clientMetadataUrl: options.clientMetadataUrl }),
    ...(options.scope === undefined ? {} : { scope: options.scope }),
    onAuthorizationUrl: async (url) => {
      if (!mayOpen(url)) {
        throw new ContractpinError(
          "AUTH_FAILED",
          `the authorization server's authorization URL is not https (${visibleText(url.protocol)}): refusing it`,
        );
      }
      await options.say(
        `Open this URL to log in to ${options.shown}:\n  ${visibleText(url.href)}\n`,
      );
      if (options.browser !== false && openBrowser(url, options.env))
        await options.say("(opened in your browser)\n");
    },
  });
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const stop = options.signal === undefined ? timeout : AbortSignal.any([timeout, options.signal]);
  const stopped = new Promise<never>((_, reject) => {
    const onAbort = () =>
      reject(
        timeout.aborted
          ? new ContractpinError("AUTH_FAILED", `no login within ${options.timeoutMs / 1000} s`)
          : stop.reason,
      );
    if (stop.aborted) onAbort();
    stop.addEventListener("abort", onAbort, { once: true });
  });
  stopped.catch(() => undefined);
  try {
    const fetchFn = authFetch();
    const challenge = await Promise.race([challengeOf(options.url, fetchFn), stopped]);
    const found = {
      ...(challenge.resourceMetadataUrl === undefined
        ? {}
        : { resourceMetadataUrl: challenge.resourceMetadataUrl }),
      // Given to the library as asked: its own order puts the scopes the
      // server advertises before the client's, which would drop --scope.
      ...(options.scope !== undefined
        ? { scope: options.scope }
        : challenge.scope !== undefined
          ? { scope: challenge.scope }
          : {}),
    };
    const first = await Promise.race([
      quietLibraryWarnings(() =>
        auth(provider, { serverUrl: options.url, fetchFn, forceReauthorization: true, ...found }),
      ),
      stopped,
    ]);
    if (first !== "REDIRECT")
      throw new ContractpinError("AUTH_FAILED", "the authorization server gave no way to log in");
    const { code, iss } = await Promise.race([listener.result, stopped]);
    const done = await Promise.race([
      quietLibraryWarnings(() =>
        auth(provider, {
          serverUrl: options.url,
          authorizationCode: code,
          ...(iss === undefined ? {} : { iss }),
          fetchFn,
          ...found,
        }),
      ),
      stopped,
    ]);
    if (done !== "AUTHORIZED" || provider.issuer === undefined)
      throw new ContractpinError(
        "AUTH_FAILED",
        "the authorization code was not exchanged for tokens",
      );
    return { issuer: provider.issuer, where: store.where };
  } catch (err) {
    throw authFailure(err);
  } finally {
    listener.close();
  }
}

/**
 * What the server's own challenge says: an `initialize` sent without any
 * credential (and without the lock's headers), whose 401 (or 403)
 * `WWW-Authenticate` may name the protected resource metadata (when it is at
 * no well-known URL) and the scope to ask for. Nothing when the server asks
 * for nothing, or cannot be reached (discovery then says why).
 */
async function challengeOf(
  url: URL,
  fetchFn: FetchLike,
): Promise<{ resourceMetadataUrl?: URL; scope?: string }> {
  try {
    const res = await fetchFn(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "contractpin", version: "login" },
        },
      }),
      signal: AbortSignal.timeout(10_000),
    });
    await res.body?.cancel().catch(() => undefined);
    if (res.status !== 401 && res.status !== 403) return {};
    const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(res);
    return {
      ...(resourceMetadataUrl === undefined ? {} : { resourceMetadataUrl }),
      ...(scope === undefined ? {} : { scope }),
    };
  } catch {
    return {};
  }
}
