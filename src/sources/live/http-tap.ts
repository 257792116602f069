import type { FetchLike } from "@modelcontextprotocol/client";
import { createParser } from "eventsource-parser";
import type { RawLog } from "./raw-log.js";

/**
 * A `fetch` for the library's HTTP transports that hands every JSON-RPC body
 * the server returns (a JSON body, or each SSE `data`) to the RawLog as raw
 * bytes before the library's own JSON.parse sees it, and notes each request
 * it sends. The library still gets an untouched copy of the response.
 */
export function tapFetch(
  log: RawLog,
  headers: Record<string, string>,
  base: FetchLike = fetch,
): FetchLike {
  return async (url, init) => {
    if (typeof init?.body === "string") noteRequest(log, init.body);
    const merged = new Headers(init?.headers);
    for (const [name, value] of Object.entries(headers)) merged.set(name, value);
    const res = await base(url, { ...init, headers: merged });
    if (!res.ok || res.body === null) return res;
    const type = (res.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
    if (type === "application/json") {
      const bytes = new Uint8Array(await res.arrayBuffer());
      if (bytes.some((b) => b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09))
        log.received(bytes);
      return new Response(bytes, {
        status: res.status,
        statusText: res.statusText,
        headers: res.headers,
      });
    }
    if (type !== "text/event-stream") return res;
    const [mine, theirs] = res.body.tee();
    void readEvents(mine, log);
    return new Response(theirs, {
      status: res.status,
      statusText: res.statusText,
      headers: res.headers,
    });
  };
}

function noteRequest(log: RawLog, body: string): void {
  try {
    log.sent(JSON.parse(body)); // our own client's request, not server data
  } catch {
    // not JSON: nothing to note
  }
}

async function readEvents(stream: ReadableStream<Uint8Array>, log: RawLog): Promise<void> {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const parser = createParser({
    onEvent(event) {
      // An event without data (a stream's priming event) carries no message.
      if ((event.event === undefined || event.event === "message") && event.data.trim() !== "") {
        log.received(event.data);
      }
    },
  });
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
    }
    parser.feed(decoder.decode());
  } catch (err) {
    // The transport aborts its streams on close: that is not the server's fault.
    if ((err as Error | undefined)?.name === "AbortError") return;
    if (err instanceof TypeError && /invalid|decode/i.test(err.message)) {
      log.fail(new Error("the server sent an event stream that is not valid UTF-8"));
    }
  }
}
