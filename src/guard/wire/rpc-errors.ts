import type { JsonValue } from "../../core/json/json-value.js";

// JSON-RPC error codes.
export const INVALID_REQUEST = -32600;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;
export const PARSE_ERROR = -32700;

/**
 * A JSON-RPC error answer to the request whose id is `rawId` (its text as
 * the client wrote it), the message passed through `redact` first.
 */
export function errorText(
  rawId: string,
  code: number,
  message: string,
  data?: JsonValue,
  redact?: (text: string) => string,
): string {
  const shown = redact?.(message) ?? message;
  const error = JSON.stringify({ code, message: shown, ...(data === undefined ? {} : { data }) });
  return `{"jsonrpc":"2.0","id":${rawId},"error":${error}}`;
}
