import { ContractpinError } from "../../core/errors.js";
import { isJsonObject, type JsonValue } from "../../core/json/json-value.js";
import { DEFAULT_MAX_MESSAGE_BYTES } from "../../core/limits.js";
import { parseJson } from "../../core/json/strict-json.js";
import type { ReadContext } from "../read-context.js";
import { CapturedResponses } from "./captured-responses.js";
import { mayAnswer, mayAnswerLater } from "./response-id.js";

/** A page of a list method being read: the method and the page's 1-based number. */
export interface ListPage {
  method: string;
  page: number;
}

/** What the log needs from the read: its message bound and where warnings go. */
export type RawLogContext = Pick<ReadContext, "maxMessageBytes" | "warn">;

/**
 * Stdout lines that are not JSON, and stray responses, quoted in a warning
 * per server (each kind its own count); later ones are skipped silently.
 */
const MAX_WARNINGS = 5;
/** How much of such a line a warning quotes. */
const QUOTE_CHARS = 100;
/** How much of a response's id a message shows. */
const ID_CHARS = 40;

/**
 * The server's messages as our strict parser read them from the wire, so that
 * tools reach the digest exactly as served: the MCP library's own parse
 * (JSON.parse, then zod) never decides what is pinned. Only responses to
 * requests contractpin sent are kept, each once. A second response to one
 * id fails the read, since the library would take the first and what is
 * pinned must be what clients see; so does a response the library could take
 * for the answer to a request it sent (or will send) under another id, since
 * it matches ids loosely ({@link mayAnswer}). A stray response that no
 * request can be taken for (a server answering the client's answer to its own
 * ping) is skipped with a warning. The first failure fails the whole read.
 */
export class RawLog extends CapturedResponses {
  /** Requests sent on the current connection, by id key: their method. */
  private readonly requests = new Map<string, string>();
  /** The same requests' ids as the client wrote them. */
  private readonly requestIds: (string | number)[] = [];
  /** The highest number among those ids, -1 before the first. */
  private highestSent = -1;
  private readonly answered = new Set<string>();
  private failure: Error | undefined;
  private lineWarnings = 0;
  private strayWarnings = 0;
  /** Called once, with the first failure, so that the read can stop at once. */
  onFailure?: (err: Error) => void;
  /**
   * The list page the read is at (set by listPages from its request until the
   * page is accepted): a failure meanwhile (the server ends, a message fails
   * the strict parser, the deadline) is named by it (SPEC.md 8).
   */
  listPage: ListPage | undefined;

  constructor(
    private readonly ctx: RawLogContext = {
      maxMessageBytes: DEFAULT_MAX_MESSAGE_BYTES,
      warn: () => undefined,
    },
  ) {
    super();
  }

  /** The largest message (an HTTP body, an SSE event, a stdio line, a batch) accepted, in bytes. */
  get maxMessageBytes(): number {
    return this.ctx.maxMessageBytes;
  }

  /** Parses one raw message (or batch) from the server; returns it, or undefined when it was rejected. */
  received(bytes: Uint8Array | string): JsonValue | undefined {
    let message: JsonValue;
    try {
      message = parseJson(bytes);
    } catch (err) {
      this.failStrict(err);
      return undefined;
    }
    return this.accept(message, bytes);
  }

  /**
   * Like {@link received}, for a line of a stdio server's stdout. A line that
   * is not JSON at all (a log line) is skipped with a warning, as official
   * clients skip it; a line that is JSON but fails the strict parser still
   * fails the read. The lenient check runs only when the strict parse failed.
   */
  receivedLine(line: Uint8Array): JsonValue | undefined {
    let message: JsonValue;
    try {
      message = parseJson(line);
    } catch (err) {
      const text = Buffer.from(line.buffer, line.byteOffset, line.byteLength).toString("utf8");
      if (isJson(text)) this.failStrict(err);
      else this.warnLine(text);
      return undefined;
    }
    return this.accept(message, line);
  }

  private accept(message: JsonValue, bytes: Uint8Array | string): JsonValue | undefined {
    for (const m of Array.isArray(message) ? message : [message]) {
      if (!isJsonObject(m) || !(Object.hasOwn(m, "result") || Object.hasOwn(m, "error"))) continue;
      const id = m["id"];
      // An error without an id (or with id null) answers no request: the
      // server could not read one. Nothing can take it for an answer.
      if (id === undefined || id === null) continue;
      const key = idKey(id);
      if (this.answered.has(key)) {
        this.fail(wireError(`the server sent two responses to request id ${showId(id)}`));
        return undefined;
      }
      const method = this.requests.get(key);
      if (method === undefined) {
        const takenFor = this.requestIds.find((sent) => mayAnswer(id, sent));
        if (takenFor === undefined && !mayAnswerLater(id, this.highestSent)) {
          this.warnStray(id);
          continue;
        }
        this.fail(
          wireError(
            `the server sent a response to id ${showId(id)}, which contractpin never sent` +
              (takenFor === undefined
                ? ""
                : ` (the MCP library takes it for the answer to request ${showId(takenFor)})`),
          ),
        );
        return undefined;
      }
      this.answered.add(key);
      this.capture(method, key, m, Array.isArray(message) ? undefined : bytes);
    }
    this.wake();
    return message;
  }

  /** Notes a request the client sends: only its responses are accepted, and the latest tools/list is the one read. */
  sent(message: unknown): void {
    for (const m of Array.isArray(message) ? message : [message]) {
      const r = m as { method?: unknown; id?: unknown };
      if (typeof r.method !== "string" || (typeof r.id !== "number" && typeof r.id !== "string"))
        continue;
      const key = idKey(r.id);
      // A client numbers its requests from 0 and never reuses an id: an id
      // seen before means a new client on a new connection (the fallback after
      // a failed version probe), whose ids start afresh.
      if (this.requests.has(key)) {
        this.requests.clear();
        this.requestIds.length = 0;
        this.highestSent = -1;
        this.answered.clear();
        this.forgetCaptured();
      }
      this.requests.set(key, r.method);
      this.requestIds.push(r.id);
      if (typeof r.id === "number" && r.id > this.highestSent) this.highestSent = r.id;
      this.captureRequest(r.method, key);
    }
  }

  /** Fails the read because one message is over {@link maxMessageBytes}; returns the error. */
  failTooLarge(): Error {
    const err = wireError(`the server sent a message larger than ${size(this.maxMessageBytes)}`);
    this.fail(err);
    return err;
  }

  /** Records a failure of the wire itself (unreadable bytes, an over-long message). */
  fail(err: Error): void {
    if (this.failure !== undefined) return;
    this.failure = err;
    this.onFailure?.(err);
    this.wake();
  }

  /** The first failure, if any. */
  override get error(): Error | undefined {
    return this.failure;
  }

  private failStrict(err: unknown): void {
    const reason = err instanceof Error ? err.message : String(err);
    const code = err instanceof ContractpinError ? err.code : "JSON_SYNTAX";
    this.fail(
      new ContractpinError(code, `the server sent a message that is not strict JSON: ${reason}`),
    );
  }

  private warnLine(text: string): void {
    this.lineWarnings++;
    if (this.lineWarnings > MAX_WARNINGS) return;
    // A code point is at most two UTF-16 units: the head is enough, however long the line.
    const trimmed = text.trim();
    const chars = Array.from(trimmed.slice(0, 2 * QUOTE_CHARS));
    const cut = chars.length > QUOTE_CHARS || trimmed.length > 2 * QUOTE_CHARS;
    const quoted = quote(chars.slice(0, QUOTE_CHARS).join("")) + (cut ? "..." : "");
    this.ctx.warn(
      `the server wrote a line that is not JSON on stdout, ignored: ${quoted}` +
        (this.lineWarnings === MAX_WARNINGS ? " (further such lines are ignored silently)" : ""),
    );
  }

  private warnStray(id: JsonValue): void {
    this.strayWarnings++;
    if (this.strayWarnings > MAX_WARNINGS) return;
    this.ctx.warn(
      `the server sent a response to id ${showId(id)}, which answers no request contractpin sent, ignored` +
        (this.strayWarnings === MAX_WARNINGS
          ? " (further such responses are ignored silently)"
          : ""),
    );
  }
}

function idKey(id: JsonValue): string {
  return `${typeof id}:${String(id)}`;
}

/**
 * An id as the server wrote it, shortened to ID_CHARS code points and
 * escaped: it is server data. A string in quotes, anything else as JSON.
 */
function showId(id: JsonValue): string {
  const text = typeof id === "string" ? id : JSON.stringify(id);
  const chars = Array.from(text.slice(0, 2 * ID_CHARS));
  const cut = chars.length > ID_CHARS || text.length > 2 * ID_CHARS;
  const shown = escape(chars.slice(0, ID_CHARS).join("")) + (cut ? "..." : "");
  return typeof id === "string" ? `"${shown}"` : shown;
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Quotes server text for a warning: control characters, and the invisible
 * and bidirectional formatting characters that could disguise it, become
 * visible `\uXXXX` escapes.
 */
function quote(text: string): string {
  return `"${escape(text)}"`;
}

/** {@link quote} without the quotes. */
function escape(text: string): string {
  return text.replace(
    // eslint-disable-next-line no-control-regex -- escaping control characters is the point
    /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff"\\]/g,
    (c) =>
      c === '"' || c === "\\" ? `\\${c}` : `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

function size(bytes: number): string {
  const mib = 1024 * 1024;
  return bytes % mib === 0 ? `${bytes / mib} MiB` : `${bytes} bytes`;
}

function wireError(message: string): ContractpinError {
  return new ContractpinError("SERVER_UNREADABLE", message);
}
