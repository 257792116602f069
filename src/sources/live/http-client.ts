import {
  SSEClientTransport,
  StreamableHTTPClientTransport,
  type FetchLike,
  type Transport,
} from "@modelcontextprotocol/client";
import { ContractpinError } from "../../core/errors.js";
import type { HttpSource } from "../../core/source/server-source.js";
import type { Authorize, ReadContext } from "../read-context.js";
import { tapFetch } from "./http-tap.js";
import { httpTarget } from "./http-target.js";
import type { RawLog } from "./raw-log.js";
import { sameOriginFetch } from "./same-origin-fetch.js";

/**
 * The client transports of an http server's read (read-live.ts): Streamable
 * HTTP, or the legacy HTTP+SSE transport, each fetching through the tap
 * (http-tap.ts) under a same-origin fetch, authorized as the caller says.
 */

// Streamable HTTP "SSE polling" (spec 2025-11-25): a server may end a response
// stream after its priming event and expect GET with Last-Event-ID. At most
// this many resumptions per connection, each started before the deadline.
const MAX_RESUMPTIONS = 10;

/**
 * Makes the transport of an http server's read: each call a new one (the
 * legacy HTTP+SSE transport with `legacySse`), passed to `track` so that the
 * read closes it. A response stream the server ends is resumed only before
 * `endsAt` (the read's deadline, on the `performance.now()` clock).
 */
export function httpFactory(
  source: HttpSource,
  ctx: ReadContext,
  log: RawLog,
  track: <T extends Transport>(t: T) => T,
  legacySse: boolean,
  endsAt: number,
  authorize: Authorize | undefined,
) {
  const { url, headers } = httpTarget(source, ctx.env);
  // Under the tap, so that a redirect never takes the headers (or the access
  // token) to another origin, and the tap sees only the answers that were let
  // through. OAuth's own traffic (src/auth) has its own fetch, never the tap.
  const sameOrigin = sameOriginFetch();
  const fetch = tapFetch(log, headers, authorized(source, url, ctx, sameOrigin, authorize));
  return () =>
    track(
      legacySse
        ? new SSEClientTransport(url, { fetch })
        : new StreamableHTTPClientTransport(url, {
            // Resumed streams are fetched through the tap like any other.
            fetch: withoutStandaloneStream(fetch),
            reconnectionOptions: {
              maxRetries: 2,
              initialReconnectionDelay: 100,
              maxReconnectionDelay: 1000,
              reconnectionDelayGrowFactor: 2,
            },
            reconnectionScheduler: resumptionScheduler(log, endsAt),
          }),
    );
}

/** The fetch through which an http server is read: authorized as the caller says (ReadContext.authorizer). */
function authorized(
  source: HttpSource,
  url: URL,
  ctx: ReadContext,
  base: FetchLike,
  authorize: Authorize | undefined,
): FetchLike {
  if (authorize !== undefined) return authorize(source, url, ctx, base);
  if (source.auth !== undefined) {
    throw new ContractpinError(
      "SOURCE_INVALID",
      "the server authorizes with OAuth, but this read was given no way to authorize",
    );
  }
  return base;
}

/**
 * contractpin reads tools/list, nothing a server sends unasked: the GET for a
 * standalone stream (server notifications and requests) is answered 405 here,
 * as by a server that offers none, and never sent. So every stream the
 * transport resumes is the response stream of a request contractpin sent.
 */
function withoutStandaloneStream(fetch: FetchLike): FetchLike {
  return (url, init) =>
    init?.method === "GET" && !new Headers(init.headers).has("last-event-id")
      ? Promise.resolve(new Response(null, { status: 405 }))
      : fetch(url, init);
}

/**
 * Schedules the resumption of a response stream the server ended (after the
 * delay it asked for with `retry:`, or a short backoff), but never one that
 * would start after the deadline (the read then times out), and no more than
 * MAX_RESUMPTIONS per connection (a server that ends every stream without
 * answering fails).
 */
function resumptionScheduler(log: RawLog, endsAt: number) {
  let count = 0;
  return (reconnect: () => void, delayMs: number): (() => void) | undefined => {
    if (performance.now() + delayMs >= endsAt) return undefined;
    if (++count > MAX_RESUMPTIONS) {
      log.fail(
        new ContractpinError(
          "SERVER_UNREADABLE",
          `the server ended its event stream more than ${MAX_RESUMPTIONS} times without answering`,
        ),
      );
      return undefined;
    }
    const timer = setTimeout(reconnect, delayMs);
    return () => clearTimeout(timer);
  };
}
