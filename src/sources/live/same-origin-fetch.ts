import type { FetchLike } from "@modelcontextprotocol/client";
import { ContractpinError } from "../../core/errors.js";
import { visibleText } from "../../core/visible-text.js";

// Redirects followed within one origin before the request fails.
const MAX_REDIRECTS = 5;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * A `fetch` that follows a redirect only within the origin it started at, so
 * that the lock's headers (an API key, a token: expanded `${VAR}` values) are
 * never sent to another origin. The platform's `fetch` follows any redirect
 * and drops only `Authorization` on the way: an `X-Api-Key` header would
 * reach whatever origin the server names, and an `https` URL could be sent on
 * to plain `http`. A redirect to another origin (scheme, host or port) fails
 * the request instead, naming only that origin.
 *
 * As `fetch` does, a 303 (or a 301/302 of a POST) continues as a GET without
 * a body; 307 and 308 repeat the request as it was.
 *
 * @throws ContractpinError HTTP_REDIRECT_REFUSED for a redirect to another
 *   origin, a redirect without a usable `Location`, or more than 5 redirects.
 */
export function sameOriginFetch(base: FetchLike = fetch): FetchLike {
  return async (url, init) => {
    let target = new URL(String(url));
    const origin = target.origin;
    let request: RequestInit = { ...init, redirect: "manual" };
    for (let hop = 0; ; hop++) {
      const res = await base(target, request);
      if (!REDIRECTS.has(res.status)) return res;
      await res.body?.cancel().catch(() => undefined);
      const next = redirectTarget(res.headers.get("location"), target);
      if (next.origin !== origin) {
        throw new ContractpinError(
          "HTTP_REDIRECT_REFUSED",
          `the server redirected to another origin (${visibleText(next.origin)}); contractpin ` +
            `follows redirects only within ${visibleText(origin)}, so nothing was sent there`,
        );
      }
      if (hop === MAX_REDIRECTS) {
        throw new ContractpinError(
          "HTTP_REDIRECT_REFUSED",
          `the server redirected more than ${MAX_REDIRECTS} times`,
        );
      }
      const method = (request.method ?? "GET").toUpperCase();
      if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === "POST")) {
        const headers = new Headers(request.headers);
        headers.delete("content-type");
        headers.delete("content-length");
        request = { ...request, method: "GET", body: null, headers };
      }
      target = next;
    }
  };
}

function redirectTarget(location: string | null, from: URL): URL {
  if (location !== null) {
    try {
      return new URL(location, from);
    } catch {
      // not a URL: refused below
    }
  }
  throw new ContractpinError(
    "HTTP_REDIRECT_REFUSED",
    "the server answered with a redirect that has no usable Location",
  );
}
