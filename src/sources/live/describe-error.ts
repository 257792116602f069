import { ProtocolError, SdkError, SdkHttpError, SseError } from "@modelcontextprotocol/client";
import { isContractpinError } from "../../core/errors.js";
import type { ExitStatus } from "./spawn-server.js";

const TLS = /^(ERR_TLS_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|ERR_SSL_)/;

/**
 * One clear line for why a live server could not be read, whatever layer failed.
 *
 * @param sent.headers whether the read sent configured headers (an HTTP 401
 *   then means they were refused, else that the server wants some).
 */
export function describeError(
  err: unknown,
  timeoutSeconds: number,
  sent: { headers: boolean } = { headers: false },
): string {
  if (isContractpinError(err)) return err.message;
  if (err instanceof SdkHttpError)
    return httpStatus(err.status, err.statusText ?? "", sent.headers);
  if (err instanceof SseError) {
    return typeof err.code === "number"
      ? `${httpStatus(err.code, "", sent.headers)} (legacy SSE)`
      : `legacy SSE failed: ${err.message}`;
  }
  if (err instanceof ProtocolError)
    return `the server answered with a JSON-RPC error ${err.code}: ${err.message}`;
  if (err instanceof SdkError) {
    switch (err.code) {
      case "REQUEST_TIMEOUT":
        return `timed out after ${timeoutSeconds} s`;
      case "CONNECTION_CLOSED":
        return "the server closed the connection";
      case "CLIENT_HTTP_UNEXPECTED_CONTENT":
        return `the endpoint is not an MCP server: ${err.message}`;
      default:
        return err.message;
    }
  }
  if (err instanceof SyntaxError)
    return "the endpoint answered with a body that is not JSON: it is not an MCP server";
  const cause = (err as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  const code = (err as { code?: unknown } | undefined)?.code ?? cause?.code;
  if (typeof code === "string") {
    if (code === "ECONNREFUSED") return "connection refused";
    if (code === "ENOTFOUND" || code === "EAI_AGAIN")
      return "the host name could not be resolved (DNS)";
    if (code === "ECONNRESET") return "the connection was reset";
    if (code === "ENOENT" && (err as { syscall?: string }).syscall?.startsWith("spawn")) {
      return `cannot start ${(err as { path?: string }).path ?? "the command"}: command not found`;
    }
    if (code === "EACCES" && (err as { syscall?: string }).syscall?.startsWith("spawn")) {
      return `cannot start ${(err as { path?: string }).path ?? "the command"}: permission denied`;
    }
    if (TLS.test(code)) return `TLS error: ${code}`;
  }
  if (err instanceof Error && err.name === "TimeoutError")
    return `timed out after ${timeoutSeconds} s`;
  const message = err instanceof Error ? err.message : String(err);
  return typeof cause?.message === "string" ? `${message}: ${cause.message}` : message;
}

/**
 * One line for a stdio server that ended on its own: its exit code or the
 * signal that ended it, and whether it had written anything before.
 */
export function describeExit(status: ExitStatus, answered: boolean): string {
  const how =
    status.signal !== null ? `was killed by ${status.signal}` : `exited with code ${status.code}`;
  if (answered) return `the server closed the connection: it ${how}`;
  // A program that is not an MCP server (a CLI that prints its help, `true`)
  // ends by itself, successfully, before it reads a request.
  return status.code === 0
    ? `the server ${how} before answering: a stdio MCP server runs until its stdin closes; is this command one?`
    : `the server ${how} before answering`;
}

function httpStatus(status: number, statusText: string, headers = true): string {
  const text = statusText ? ` ${statusText}` : "";
  if ((status === 401 || status === 403) && !headers)
    return (
      `HTTP ${status}${text}: the server wants credentials, and none are configured for it; ` +
      "pass them as a header that refers to an environment variable, e.g. " +
      "--header 'Authorization: Bearer ${TOKEN}' with TOKEN set when reading"
    );
  if (status === 401 || status === 403)
    return `HTTP ${status}${text}: the server refused the credentials (check the headers)`;
  if (status === 404) return `HTTP 404${text}: no MCP endpoint at this URL`;
  if (status >= 500) return `HTTP ${status}${text}: the server failed`;
  return `HTTP ${status}${text}: the server refused the MCP request`;
}
