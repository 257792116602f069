import type { FetchLike } from "@modelcontextprotocol/client";
import { ContractpinError } from "../core/errors.js";

/** The credential of one server for one session (src/auth/read-auth.ts). */
export interface ResourceAuth {
  /** The access token to send, once one is known. */
  token(): Promise<string | undefined>;
  /**
   * The server answered 401 with a Bearer challenge to a request that carried
   * `sent`: resolves once a retry is worth it (a token is ready), else throws
   * one line as a ContractpinError.
   */
  unauthorized(response: Response, sent: string | undefined): Promise<void>;
  /** The same for `403` with `error="insufficient_scope"` (a step-up). */
  insufficientScope(response: Response, sent: string | undefined): Promise<void>;
  /** A request that carried `sent` was accepted. */
  accepted(sent: string | undefined): void;
}

// Every retry follows a new token, and ResourceAuth bounds how many there are;
// this only stops a bug from becoming a loop.
const MAX_ATTEMPTS = 5;

/**
 * The `fetch` of an OAuth-protected MCP server's own requests (below the
 * raw-bytes tap for a read, under the guard's HTTP upstream): the access
 * token in `Authorization`, and a request the server refuses with a Bearer
 * `401`, or a `403 insufficient_scope`, sent again once `auth` has a token
 * for it. One path for verify and the guard, so both keep the same rules.
 * The refused responses are read by nobody but this (their bodies dropped):
 * the tap and the MCP library see only the answer to the request that was
 * let through, or the error that `auth` throws.
 */
export function authorizedFetch(auth: ResourceAuth, base: FetchLike): FetchLike {
  return async (url, init) => {
    for (let attempt = 1; ; attempt++) {
      const sent = await auth.token();
      const headers = new Headers(init?.headers);
      if (sent !== undefined) headers.set("authorization", `Bearer ${sent}`);
      const res = await base(url, { ...init, headers });
      const refusal = refusalOf(res);
      if (refusal === undefined) {
        if (res.ok) auth.accepted(sent);
        return res;
      }
      await res.body?.cancel().catch(() => undefined);
      if (attempt === MAX_ATTEMPTS) {
        throw new ContractpinError("AUTH_FAILED", "the server kept refusing every access token");
      }
      if (refusal === "unauthorized") await auth.unauthorized(res, sent);
      else await auth.insufficientScope(res, sent);
    }
  };
}

/** Which OAuth refusal a response is, if any. A 401 without a Bearer challenge is not one: the caller says what it is. */
function refusalOf(res: Response): "unauthorized" | "insufficient_scope" | undefined {
  const challenge = res.headers.get("www-authenticate") ?? "";
  if (res.status === 401 && /^\s*(bearer|dpop)\b/i.test(challenge)) return "unauthorized";
  if (res.status === 403 && /^\s*bearer\b[^]*\berror\s*=\s*"?insufficient_scope\b/i.test(challenge))
    return "insufficient_scope";
  return undefined;
}
