import type { JsonValue } from "../../core/json/json-value.js";
import { prettyJson } from "../../core/json/pretty-json.js";
import { renderJsonValue } from "../../core/findings/diff-json.js";
import { visibleText } from "../../core/visible-text.js";
import { splitValue } from "./change-entries.js";
import { valueLines } from "./entry-text.js";

/**
 * An added item, shown whole, whatever its kind: its text (`text`: a
 * description, or the server's instructions), then each other member of
 * `fields` it has, one line when it fits, else split into its members
 * (values never cut); with `verbose`, pretty-printed. A tool shows
 * REPORTED_FIELDS, a prompt or template its kind's members but its key.
 */
export function addedBlock(
  after: Readonly<Record<string, JsonValue>>,
  fields: readonly string[],
  verbose: boolean,
  text: "description" | "instructions" = "description",
): string[] {
  const lines: string[] = [];
  lines.push(`    ${text}:`);
  const description = Object.hasOwn(after, text) ? after[text]! : null;
  for (const l of descriptionText(description).split("\n")) lines.push(`      ${l}`);
  for (const field of fields) {
    if (field === text) continue;
    const value = Object.hasOwn(after, field) ? after[field] : undefined;
    if (value === undefined || (field === "inputSchema" && value === null)) continue;
    if (!verbose) {
      for (const change of splitValue(`/${field}`, value, false))
        for (const l of valueLines(change)) lines.push(`    ${l}`);
      continue;
    }
    lines.push(`    ${field}:`);
    for (const l of prettyJson(value).split("\n")) lines.push(`      ${visibleText(l)}`);
  }
  return lines;
}

function descriptionText(description: JsonValue): string {
  if (typeof description === "string") return visibleText(description, { multiline: true });
  return description === null ? "(none)" : renderJsonValue(description);
}
