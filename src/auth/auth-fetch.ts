import type { FetchLike } from "@modelcontextprotocol/client";
import { ContractpinError } from "../core/errors.js";
import { visibleText } from "../core/visible-text.js";
import { sameOriginFetch } from "../sources/live/same-origin-fetch.js";

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** True for a loopback host name (`localhost`, 127.0.0.1, [::1]). */
export function isLoopback(url: URL): boolean {
  return LOOPBACK.has(url.hostname) || url.hostname.endsWith(".localhost");
}

/**
 * The `fetch` of OAuth traffic (discovery, registration, token requests): the
 * platform's, with redirects kept within the origin (sameOriginFetch), and no
 * request with a body (a registration, a token or refresh request) sent over
 * plain HTTP except to loopback. It never gets the lock's headers and never
 * feeds the raw-bytes tap: what an authorization server answers reaches no
 * JSON-RPC log, report or `--verbose` output.
 */
export function authFetch(base: FetchLike = fetch): FetchLike {
  const inner = sameOriginFetch(base);
  return (url, init) => {
    const target = new URL(String(url));
    if (init?.body != null && target.protocol !== "https:" && !isLoopback(target)) {
      throw new ContractpinError(
        "AUTH_FAILED",
        `refusing to send an OAuth request over plain HTTP to ${visibleText(target.origin)}`,
      );
    }
    return inner(url, init);
  };
}
