import type { HttpSource } from "../core/source/server-source.js";
import type { FetchLike, ReadContext } from "../sources/read-tools.js";
import { authorizedFetch } from "./authorized-fetch.js";
import { readAuth } from "./read-auth.js";

/**
 * How a read authorizes an http server (ReadContext.authorizer): its `auth`
 * member's credential on every request, or the fetch as it is for a server
 * without one. Loaded only when an http server is read.
 */
export function authorizeRead(
  source: HttpSource,
  url: URL,
  ctx: ReadContext,
  base: FetchLike,
): FetchLike {
  const auth = readAuth(source, url, ctx);
  return auth === undefined ? base : authorizedFetch(auth, base);
}
