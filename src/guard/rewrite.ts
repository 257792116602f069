import { ContractpinError } from "../core/errors.js";
import { getMember, isJsonObject, type JsonObject, type JsonValue } from "../core/json-value.js";
import { elementSpans, memberSpans, valueSpan } from "./json-spans.js";

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
 * The response `raw` without the member `name` of its result (the
 * instructions of an initialize result); every other byte unchanged.
 *
 * @throws ContractpinError when the text cannot be split as it was parsed (never expected).
 */
export function removeResultMember(raw: string, name: string): string {
  const result = valueSpan(raw, ["result"]);
  const members = result === undefined ? undefined : memberSpans(raw, result);
  if (result === undefined || members === undefined)
    throw new ContractpinError(
      "SERVER_UNREADABLE",
      "the result could not be split into its members",
    );
  let out = raw;
  // From the last: the offsets of the earlier members stay valid.
  for (let i = members.length - 1; i >= 0; i--) {
    const m = members[i]!;
    if (m.name !== name) continue;
    const next = members[i + 1];
    const previous = members[i - 1];
    // With the comma after it, or the one before it when it is the last member.
    const [start, end] =
      next !== undefined
        ? [m.start, next.start]
        : previous !== undefined
          ? [previous.value[1], m.value[1]]
          : [m.start, m.value[1]];
    out = out.slice(0, start) + out.slice(end);
  }
  return out;
}
