import { createParser } from "eventsource-parser";

/** The whole body, or undefined (and the rest left unread) once it is over `limit` bytes. */
export async function readAtMost(
  body: ReadableStream<Uint8Array>,
  limit: number,
): Promise<Uint8Array | undefined> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return Buffer.concat(chunks, total);
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
}

/** Room for a pending SSE line's field name ("data: ") in the event parser's count. */
const FIELD_SLACK = 64;

/** How {@link readMessageEvents} ended. */
export interface EventsRead {
  /** The id of the last event that carried one, for a resumption's Last-Event-ID. */
  lastId?: string;
  /** An event over the bound ended the read. */
  tooLarge: boolean;
  /** The stream failed (an abort, bytes that are not UTF-8): what it threw. */
  error?: unknown;
}

/**
 * Reads a `text/event-stream` body of JSON-RPC messages: the data of each
 * `message` event that has any goes to `on.message`. An event over `limit`
 * bytes of UTF-8 is refused while it arrives (the parser's buffer is
 * bounded, counted in characters, never more than the bytes they came from)
 * and checked exactly once whole: then `on.tooLarge` is called, and only
 * after it the rest of the body is cancelled (a body that is one branch of a
 * tee cancels only once the caller has cut the other). Never throws.
 */
export async function readMessageEvents(
  body: ReadableStream<Uint8Array>,
  limit: number,
  on: { message(data: string): void; tooLarge(): void },
): Promise<EventsRead> {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const read: EventsRead = { tooLarge: false };
  const parser = createParser({
    maxBufferSize: limit + FIELD_SLACK,
    onEvent(event) {
      if (event.id !== undefined) read.lastId = event.id;
      // An event without data (a stream's priming event) carries no message.
      if ((event.event === undefined || event.event === "message") && event.data.trim() !== "") {
        if (Buffer.byteLength(event.data, "utf8") > limit) read.tooLarge = true;
        else on.message(event.data);
      }
    },
    onError(err) {
      if (err.type === "max-buffer-size-exceeded") read.tooLarge = true;
    },
  });
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
      if (read.tooLarge) {
        on.tooLarge();
        await reader.cancel().catch(() => undefined);
        return read;
      }
    }
    parser.feed(decoder.decode());
  } catch (err) {
    read.error = err;
  }
  return read;
}
