import { ContractpinError } from "../../core/errors.js";
import {
  getMember,
  isJsonObject,
  type JsonObject,
  type JsonValue,
} from "../../core/json/json-value.js";
import { idKey, type Requests } from "./accounting.js";
import type { Upstream } from "../policy/guard-types.js";

/** The prefix of the ids of the guard's own requests to the server. */
export const OWN_ID = "contractpin-guard-";
/** The id of the guard's own subscriptions/listen request (protocol 2026-07-28). */
export const OWN_LISTEN = `${OWN_ID}listen`;

/** Whether an id is of the kind the guard gives its own requests (reserved: no client's may be). */
export function isOwnId(id: JsonValue | undefined): boolean {
  return typeof id === "string" && id.startsWith(OWN_ID);
}

/** What the guard's own requests need of their session. */
export interface OwnSession {
  server: string;
  timeoutMs: number;
  /** The 2026-07-28 envelope of the client's latest request, if any. */
  envelope(): JsonObject | undefined;
  /** Why the session answers only errors, if it does. */
  failure(): string | undefined;
  warn(message: string): void;
}

/**
 * The guard's own requests to the server, in the session's accounting
 * (`requests`) beside the client's: a request whose answer it awaits (a
 * tools/list page), and its own subscriptions/listen under 2026-07-28.
 */
export class OwnRequests {
  private seq = 0;
  private listening = false;

  constructor(
    private readonly requests: Requests,
    private readonly upstream: Upstream,
    private readonly session: OwnSession,
  ) {}

  /** Sends one request and resolves with its answer (rejects on a timeout, a failure, an unusable answer). */
  request(method: string, params: JsonObject): Promise<JsonObject> {
    const id = `${OWN_ID}${++this.seq}`;
    const key = idKey(id, "");
    const { timeoutMs } = this.session;
    return new Promise((resolve, reject) => {
      const failure = this.session.failure();
      if (failure !== undefined) return reject(new Error(failure));
      const timer = setTimeout(() => {
        this.requests.take(key);
        reject(
          new ContractpinError(
            "SERVER_UNREADABLE",
            `the server did not answer ${method} within ${timeoutMs / 1000} s`,
          ),
        );
      }, timeoutMs);
      const settle = (answer: JsonObject | Error) => {
        clearTimeout(timer);
        if (answer instanceof Error) reject(answer);
        else resolve(answer);
      };
      this.requests.add(key, { by: "guard", method, settle });
      // In a 2026-07-28 session each request carries the client's envelope.
      const envelope = this.session.envelope();
      const full = envelope === undefined ? params : { _meta: envelope, ...params };
      const text = JSON.stringify({ jsonrpc: "2.0", id, method, params: full });
      this.upstream.sendRaw(Buffer.from(text, "utf8")).catch((err: unknown) => {
        this.requests.take(key);
        settle(err instanceof Error ? err : new Error(String(err)));
      });
    });
  }

  /**
   * Under 2026-07-28 a server sends list_changed only on subscriptions/listen
   * streams, and a client need not open one: the guard opens its own, once,
   * so that it hears every change whatever the client does.
   */
  listen(): void {
    const envelope = this.session.envelope();
    if (this.listening || envelope === undefined) return;
    this.listening = true;
    // Its answer comes when the subscription ends.
    this.requests.add(idKey(OWN_LISTEN, ""), {
      by: "guard",
      method: "subscriptions/listen",
      settle: (answer) => {
        const error = answer instanceof Error ? undefined : getMember(answer, "error");
        const code = isJsonObject(error) ? getMember(error, "code") : undefined;
        this.listenEnded(
          answer instanceof Error
            ? answer.message
            : error === undefined
              ? "the server closed it"
              : `the server refused it: error ${String(code)}`,
        );
      },
    });
    const request = {
      jsonrpc: "2.0",
      id: OWN_LISTEN,
      method: "subscriptions/listen",
      params: {
        _meta: envelope,
        notifications: {
          toolsListChanged: true,
          promptsListChanged: true,
          resourcesListChanged: true,
        },
      },
    };
    this.upstream
      .sendRaw(Buffer.from(JSON.stringify(request), "utf8"))
      .catch((err: unknown) => this.listenEnded(`it could not be sent: ${reason(err)}`));
  }

  /** The guard's own subscription is over (refused, closed, or never sent). */
  listenEnded(why: string): void {
    if (this.session.failure() !== undefined) return;
    this.session.warn(
      `server ${this.session.server}: the guard's own subscription to list_changed ended (${why}); ` +
        "changes are heard only on the client's subscriptions",
    );
  }
}

/** What an error says, in one line. */
export function reason(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
