import { ContractpinError } from "../core/errors.js";
import { getMember, isJsonObject, type JsonObject, type JsonValue } from "../core/json-value.js";
import { elementSpans, valueSpan } from "./json-spans.js";

/**
 * The tools/list response `raw` with only the admitted tools in its tools
 * array: each admitted tool's text exactly as served, and every byte outside
 * the array (nextCursor, _meta, the envelope) unchanged.
 *
 * @throws ContractpinError when the text cannot be split as it was parsed (never expected).
 */
export function spliceTools(
  raw: string,
  served: readonly JsonValue[],
  admitted: readonly JsonValue[],
): string {
  const array = valueSpan(raw, ["result", "tools"]);
  const spans = array === undefined ? undefined : elementSpans(raw, array);
  if (array === undefined || spans === undefined || spans.length !== served.length) {
    throw new ContractpinError(
      "SERVER_UNREADABLE",
      "the tools/list result could not be split into its tools",
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
