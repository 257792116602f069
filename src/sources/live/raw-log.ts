import { ContractpinError } from "../../core/errors.js";
import { isJsonObject, type JsonObject, type JsonValue } from "../../core/json-value.js";
import { parseJson } from "../../core/strict-json.js";

/**
 * The server's messages as our strict parser read them from the wire, by
 * JSON-RPC id, so that tools reach the digest exactly as served: the MCP
 * library's own parse (JSON.parse, then zod) never decides what is pinned.
 * The first message that fails strict parsing fails the whole read.
 */
export class RawLog {
  private readonly responses = new Map<string, JsonObject>();
  private lastToolsListKey: string | undefined;
  private failure: Error | undefined;
  private waiters: (() => void)[] = [];
  /** Called once, with the first failure, so that the read can stop at once. */
  onFailure?: (err: Error) => void;

  /** Parses one raw message (or batch) from the server; returns it, or undefined when it was rejected. */
  received(bytes: Uint8Array | string): JsonValue | undefined {
    let message: JsonValue;
    try {
      message = parseJson(bytes);
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      const code = err instanceof ContractpinError ? err.code : "JSON_SYNTAX";
      this.fail(
        new ContractpinError(code, `the server sent a message that is not strict JSON: ${reason}`),
      );
      return undefined;
    }
    for (const m of Array.isArray(message) ? message : [message]) {
      if (
        isJsonObject(m) &&
        Object.hasOwn(m, "id") &&
        (Object.hasOwn(m, "result") || Object.hasOwn(m, "error"))
      ) {
        this.responses.set(idKey(m["id"]!), m);
      }
    }
    for (const wake of this.waiters.splice(0)) wake();
    return message;
  }

  /** Notes a request the client sends, to find the response to the latest tools/list. */
  sent(message: unknown): void {
    for (const m of Array.isArray(message) ? message : [message]) {
      const r = m as { method?: unknown; id?: unknown };
      if (r.method === "tools/list" && r.id !== undefined)
        this.lastToolsListKey = idKey(r.id as JsonValue);
    }
  }

  /** The raw response to the latest tools/list request, if it arrived. */
  lastToolsListResponse(): JsonObject | undefined {
    return this.lastToolsListKey === undefined
      ? undefined
      : this.responses.get(this.lastToolsListKey);
  }

  /**
   * The raw response to the latest tools/list request, waiting up to `ms` for
   * it: over HTTP the library and the tap read two copies of one stream, and
   * the library may finish its copy first.
   */
  async awaitToolsListResponse(ms: number): Promise<JsonObject | undefined> {
    const deadline = Date.now() + ms;
    for (;;) {
      const found = this.lastToolsListResponse();
      if (found !== undefined || this.failure !== undefined || Date.now() >= deadline) return found;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(1, deadline - Date.now()));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Records a failure of the wire itself (unreadable bytes, an over-long message). */
  fail(err: Error): void {
    if (this.failure !== undefined) return;
    this.failure = err;
    this.onFailure?.(err);
  }

  /** The first failure, if any. */
  get error(): Error | undefined {
    return this.failure;
  }
}

function idKey(id: JsonValue): string {
  return `${typeof id}:${String(id)}`;
}
