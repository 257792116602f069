import { createServer, type Server } from "node:http";
import { ContractpinError } from "../core/errors.js";
import { visibleText } from "../core/visible-text.js";

/** What the authorization server sent back to the loopback callback. */
export interface CallbackResult {
  code: string;
  /** The `iss` parameter (RFC 9207), when sent. */
  iss?: string;
}

/** A loopback listener for one authorization callback. */
export interface CallbackListener {
  /** The redirect URI to register and send: `http://127.0.0.1:PORT/callback`. */
  redirectUrl: string;
  /** Resolves with the code of the first callback whose `state` is ours; rejects on an error or a wrong `state`. */
  result: Promise<CallbackResult>;
  close(): void;
}

const PAGE = (text: string) =>
  `<!doctype html><meta charset="utf-8"><title>contractpin</title><p>${text}</p>\n`;

/**
 * Listens on 127.0.0.1 (`port`, or 0 for a free one) for the authorization
 * callback. contractpin checks `state` itself: a callback with another state
 * (a request forged by another page) fails the login, and nothing of it is
 * used; an `error` from the authorization server fails it with its
 * `error_description` through visibleText.
 */
export async function listenForCallback(port: number, state: string): Promise<CallbackListener> {
  let settle!: { resolve: (r: CallbackResult) => void; reject: (e: unknown) => void };
  const result = new Promise<CallbackResult>((resolve, reject) => (settle = { resolve, reject }));
  result.catch(() => undefined);
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (url.pathname !== "/callback" || req.method !== "GET") {
      res.writeHead(404).end();
      return;
    }
    const q = url.searchParams;
    const reply = (status: number, text: string) =>
      res.writeHead(status, { "content-type": "text/html; charset=utf-8" }).end(PAGE(text));
    if (q.get("state") !== state) {
      reply(400, "contractpin: this callback is not for the login in progress; it was ignored.");
      settle.reject(
        new ContractpinError(
          "AUTH_FAILED",
          "the authorization callback came back with another state than the one sent: the login was stopped",
        ),
      );
      return;
    }
    const error = q.get("error");
    const code = q.get("code");
    if (error !== null || code === null) {
      reply(400, "contractpin: the authorization failed; see the terminal.");
      const description = q.get("error_description");
      settle.reject(
        new ContractpinError(
          "AUTH_FAILED",
          `the authorization server refused: ${visibleText(error ?? "no code")}` +
            (description ? `: ${visibleText(description.slice(0, 200))}` : ""),
        ),
      );
      return;
    }
    reply(200, "contractpin: logged in. You can close this tab.");
    const iss = q.get("iss");
    settle.resolve(iss === null ? { code } : { code, iss });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (err: NodeJS.ErrnoException) =>
      reject(
        new ContractpinError(
          "USAGE",
          `cannot listen on 127.0.0.1:${port} for the callback: ${err.code ?? err.message}`,
        ),
      ),
    );
    server.listen(port, "127.0.0.1", resolve);
  });
  const address = server.address();
  const bound = typeof address === "object" && address !== null ? address.port : port;
  return {
    redirectUrl: `http://127.0.0.1:${bound}/callback`,
    result,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}
