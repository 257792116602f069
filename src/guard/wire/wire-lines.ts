import type { JsonValue } from "../../core/json/json-value.js";
import { parseJson } from "../../core/json/strict-json.js";
import { elementSpans, valueSpan } from "../../core/json/json-spans.js";
import { reason } from "./own-requests.js";

/** What one line from either side holds, read by the strict parser. */
export type LineRead =
  /** One message (its text is the line). */
  | { kind: "one"; message: JsonValue }
  /** A batch: each member with its own text, as sent. */
  | { kind: "batch"; members: [JsonValue, string][] }
  /** A batch whose members' texts could not be told apart. */
  | { kind: "unsplittable" }
  /** Not strict JSON (`why`); `loose` is what a lenient parser reads, absent when not JSON at all. */
  | { kind: "not-strict"; why: string; loose?: { value: unknown } };

/** Reads one line (`text` is its UTF-8 text) strictly, a batch split into its members' texts. */
export function readLine(line: Uint8Array | string, text: string): LineRead {
  let message: JsonValue;
  try {
    message = parseJson(line);
  } catch (err) {
    const why = reason(err);
    try {
      return { kind: "not-strict", why, loose: { value: JSON.parse(text) as unknown } };
    } catch {
      return { kind: "not-strict", why };
    }
  }
  if (!Array.isArray(message)) return { kind: "one", message };
  const spans = elementSpans(text, valueSpan(text, []) ?? [0, 0]);
  if (spans === undefined || spans.length !== message.length) return { kind: "unsplittable" };
  return { kind: "batch", members: message.map((m, i) => [m, text.slice(...spans[i]!)]) };
}
