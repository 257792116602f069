import type { FetchLike } from "@modelcontextprotocol/client";
import type { RawLog } from "./raw-log.js";
import { readAtMost, readMessageEvents } from "../../io/read-body.js";

// Statuses whose responses have no body: a Response cannot be built with one.
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/**
 * A `fetch` for the library's HTTP transports that hands every JSON-RPC body
 * the server returns (a JSON body, or each SSE `data`) to the RawLog as raw
 * bytes before the library's own JSON.parse sees it, and notes each request
 * it sends. The library still gets an untouched copy of the response.
 *
 * Every body is bounded by the log's maxMessageBytes: a JSON body (whatever its
 * `Content-Length` says, which is checked first), each SSE event, and any other
 * body the library reads whole (an error page). An oversized JSON body or event
 * fails the read and aborts the response, so the library's copy stops growing too.
 */
export function tapFetch(
  log: RawLog,
  headers: Record<string, string>,
  base: FetchLike = fetch,
): FetchLike {
  const limit = log.maxMessageBytes;
  return async (url, init) => {
    if (typeof init?.body === "string") noteRequest(log, init.body);
    const merged = new Headers(init?.headers);
    for (const [name, value] of Object.entries(headers)) merged.set(name, value);
    // Our own abort as well as the library's: refusing a body ends the response for both readers.
    const cut = new AbortController();
    const signal = init?.signal ? AbortSignal.any([init.signal, cut.signal]) : cut.signal;
    const res = await base(url, { ...init, headers: merged, signal });
    if (res.body === null || NULL_BODY.has(res.status)) return res;
    const rebuilt = (body: ConstructorParameters<typeof Response>[0]) =>
      new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
    const type = (res.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
    if (res.ok && type === "application/json") {
      const declared = Number(res.headers.get("content-length") ?? "0");
      const bytes = declared > limit ? undefined : await readAtMost(res.body, limit);
      if (bytes === undefined) {
        cut.abort();
        throw log.failTooLarge();
      }
      if (bytes.some((b) => b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09))
        log.received(bytes);
      return rebuilt(bytes);
    }
    if (res.ok && type === "text/event-stream") {
      const [mine, theirs] = res.body.tee();
      void readEvents(mine, log, () => cut.abort());
      return rebuilt(theirs);
    }
    // Not a message (an error page, a 202's text): the library reads it whole,
    // and only for its wording, so a body over the bound just ends early.
    return rebuilt(res.body.pipeThrough(bounded(limit, () => cut.abort())));
  };
}

function noteRequest(log: RawLog, body: string): void {
  try {
    log.sent(JSON.parse(body)); // our own client's request, not server data
  } catch {
    // not JSON: nothing to note
  }
}

/** A pass-through that errors (and ends the response) once more than `limit` bytes went through. */
function bounded(limit: number, abort: () => void): TransformStream<Uint8Array, Uint8Array> {
  let total = 0;
  return new TransformStream({
    transform(chunk, controller) {
      total += chunk.byteLength;
      if (total > limit) {
        abort();
        controller.error(new Error("the response body is over the message size limit"));
        return;
      }
      controller.enqueue(chunk);
    },
  });
}

async function readEvents(
  stream: ReadableStream<Uint8Array>,
  log: RawLog,
  abort: () => void,
): Promise<void> {
  const { error } = await readMessageEvents(stream, log.maxMessageBytes, {
    message: (data) => log.received(data),
    tooLarge: () => {
      log.failTooLarge();
      abort();
    },
  });
  // The transport aborts its streams on close: that is not the server's fault.
  if (error === undefined || (error as Error | undefined)?.name === "AbortError") return;
  if (error instanceof TypeError && /invalid|decode/i.test(error.message)) {
    log.fail(new Error("the server sent an event stream that is not valid UTF-8"));
  }
}
