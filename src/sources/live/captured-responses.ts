import type { JsonObject } from "../../core/json/json-value.js";

/**
 * The requests whose responses are kept, raw, for what is pinned: the lists
 * and the initialize / server/discover result (its capabilities and
 * instructions). Both handshakes are kept under one name, "initialize": the
 * one sent last is the one the session stands on.
 */
const CAPTURED: Record<string, string> = {
  initialize: "initialize",
  "server/discover": "initialize",
  "tools/list": "tools/list",
  "prompts/list": "prompts/list",
  "resources/templates/list": "resources/templates/list",
  "resources/list": "resources/list",
};

/**
 * The raw responses kept for what is pinned (see CAPTURED), each with the
 * bytes it was parsed from, and the waiting for them: the part of the wire
 * log (RawLog, raw-log.ts) that the read takes its results from.
 */
export abstract class CapturedResponses {
  /** Captured responses, by request id key. */
  private readonly captured = new Map<string, JsonObject>();
  /** The bytes each captured response was parsed from; undefined for one inside a JSON batch. */
  private readonly capturedBytes = new Map<string, Uint8Array | undefined>();
  /** The id key of the latest request of each captured kind. */
  private readonly lastKey = new Map<string, string>();
  private waiters: (() => void)[] = [];

  /** The read's first failure, if any: nothing is awaited after it. */
  abstract get error(): Error | undefined;

  /** Notes a request sent under `key`: of a captured kind, it is now the latest of its kind. */
  protected captureRequest(method: string, key: string): void {
    if (Object.hasOwn(CAPTURED, method)) this.lastKey.set(CAPTURED[method]!, key);
  }

  /**
   * Keeps the response `m` to the request `key` (of `method`), when its kind
   * is captured, with `bytes` it was parsed from (undefined inside a batch).
   */
  protected capture(
    method: string,
    key: string,
    m: JsonObject,
    bytes: Uint8Array | string | undefined,
  ): void {
    if (!Object.hasOwn(CAPTURED, method)) return;
    this.captured.set(key, m);
    // A copy: a stdio line may be a view of a buffer that is reused.
    this.capturedBytes.set(
      key,
      bytes === undefined
        ? undefined
        : typeof bytes === "string"
          ? Buffer.from(bytes, "utf8")
          : Uint8Array.prototype.slice.call(bytes),
    );
  }

  /** Forgets every captured response and request (a new connection starts afresh). */
  protected forgetCaptured(): void {
    this.captured.clear();
    this.capturedBytes.clear();
    this.lastKey.clear();
  }

  /** Wakes everything awaiting a response: one arrived, or the read failed. */
  protected wake(): void {
    for (const wake of this.waiters.splice(0)) wake();
  }

  /** The raw response to the latest tools/list request, if it arrived. */
  lastToolsListResponse(): JsonObject | undefined {
    return this.lastResponse("tools/list");
  }

  /**
   * The raw response to the latest request of a captured kind (a list
   * method, or "initialize" for the latest initialize or server/discover),
   * if it arrived.
   */
  lastResponse(method: string): JsonObject | undefined {
    const key = this.lastKey.get(method);
    return key === undefined ? undefined : this.captured.get(key);
  }

  /**
   * The bytes the strict parser read the latest tools/list response from,
   * exactly as the server sent them (a stdio line without its newline, an
   * HTTP body, an SSE event's data); undefined when it has not arrived or came
   * inside a JSON batch, whose other members are no part of it.
   */
  lastToolsListBytes(): Uint8Array | undefined {
    return this.lastBytes("tools/list");
  }

  /** {@link lastToolsListBytes} for any captured kind. */
  lastBytes(method: string): Uint8Array | undefined {
    const key = this.lastKey.get(method);
    return key === undefined ? undefined : this.capturedBytes.get(key);
  }

  /**
   * The raw response to the latest tools/list request, waiting up to `ms` for
   * it: over HTTP the library and the tap read two copies of one stream, and
   * the library may finish its copy first.
   */
  awaitToolsListResponse(ms: number): Promise<JsonObject | undefined> {
    return this.awaitResponse("tools/list", ms);
  }

  /** {@link awaitToolsListResponse} for any captured kind. */
  async awaitResponse(method: string, ms: number): Promise<JsonObject | undefined> {
    const deadline = Date.now() + ms;
    for (;;) {
      const found = this.lastResponse(method);
      if (found !== undefined || this.error !== undefined || Date.now() >= deadline) return found;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(1, deadline - Date.now()));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }
}
