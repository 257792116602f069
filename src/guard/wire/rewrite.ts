import { ContractpinError } from "../../core/errors.js";
import {
  getMember,
  isJsonObject,
  type JsonObject,
  type JsonValue,
} from "../../core/json/json-value.js";
import { elementSpans, valueSpan } from "../../core/json/json-spans.js";

/**
 * A list response `raw` (tools/list, prompts/list, ...) with only the
 * admitted items in its `member` array: each admitted item's text exactly
 * as served, and every byte outside the array (nextCursor, _meta, the
 * envelope) unchanged.
 *
 * @throws ContractpinError when the text cannot be split as it was parsed (never expected).
 */
export function spliceItems(
  raw: string,
  member: string,
  served: readonly JsonValue[],
  admitted: readonly JsonValue[],
  method: string,
): string {
  const array = valueSpan(raw, ["result", member]);
  const spans = array === undefined ? undefined : elementSpans(raw, array);
  if (array === undefined || spans === undefined || spans.length !== served.length) {
    throw new ContractpinError(
      "SERVER_UNREADABLE",
      `the ${method} result could not be split into its ${member}`,
    );
  }
  const keep = new Set(admitted);
  const parts: string[] = [];
  served.forEach((tool, i) => {
    if (keep.has(tool)) parts.push(raw.slice(spans[i]![0], spans[i]![1]));
  });
  return `${raw.slice(0, array[0])}[${parts.join(",")}]${raw.slice(array[1])}`;
}

/**
 * The initialize (or server/discover) response with `capabilities.tools.listChanged` true, so
 * that clients that subscribe only then hear the guard's notifications.
 * Unchanged (the same bytes) when the server already says so, or declares no
 * tools; otherwise re-serialised from the strictly parsed value (an
 * initialize result holds no tool contracts).
 */
export function advertiseListChanged(message: JsonObject, raw: string): string {
  const result = getMember(message, "result");
  const capabilities = isJsonObject(result) ? getMember(result, "capabilities") : undefined;
  const tools = isJsonObject(capabilities) ? getMember(capabilities, "tools") : undefined;
  if (!isJsonObject(tools) || getMember(tools, "listChanged") === true) return raw;
  Object.defineProperty(tools, "listChanged", {
    value: true,
    enumerable: true,
    writable: true,
    configurable: true,
  });
  return JSON.stringify(message);
}

/**
 * The response `raw` with the value of the member `name` of its result (the
 * instructions of an initialize result) replaced by the string `value`;
 * every other byte unchanged.
 *
 * @throws ContractpinError when the text cannot be split as it was parsed (never expected).
 */
export function replaceResultMember(raw: string, name: string, value: string): string {
  const span = valueSpan(raw, ["result", name]);
  if (span === undefined)
    throw new ContractpinError("SERVER_UNREADABLE", `the result has no ${name} to replace`);
  return `${raw.slice(0, span[0])}${JSON.stringify(value)}${raw.slice(span[1])}`;
}
