import {
  type ServerFinding,
  surfaceKey,
  type SurfaceExplained,
  type SurfaceFinding,
} from "../../core/contract/compare.js";
import { diffJson, renderJsonChange, renderJsonValue } from "../../core/findings/diff-json.js";
import { diffWords, renderWordDiff } from "../../core/findings/diff-text.js";
import { isJsonObject, type JsonValue } from "../../core/json/json-value.js";
import { kindById } from "../../core/contract/kinds.js";
import { visibleText } from "../../core/visible-text.js";
import { unknownFieldsText } from "./changed-fields.js";
import { statusLabel } from "./entry-text.js";
import { addedBlock } from "./item-text.js";
import { displayName, type Style } from "./style.js";

/**
 * The lines of a server's surface findings (SPEC.md 10.6), after its tools:
 * one per part that is not unchanged (every part with `verbose`), then what
 * changed: a word diff of instructions and descriptions, JSON Pointer lines
 * for the other members. Server text goes through visibleText / displayName.
 */
export function surfaceLines(
  server: ServerFinding,
  explained: ReadonlyMap<string, SurfaceExplained> | undefined,
  verbose: boolean,
  s: Style,
): string[] {
  const lines: string[] = [];
  for (const f of server.surface ?? []) {
    if (f.status === "unchanged" && !verbose) continue;
    let line = `  ${statusLabel(f.status, server.status === "ok", s)}  ${what(f)}`;
    const detail = explained?.get(surfaceKey(f));
    if (f.status === "drifted" && f.part !== "instructions")
      line += `  changed: ${changedMembers(f, detail)}`;
    if (f.status === "added" && server.status === "ok") line += s.dim("  (allowed by --allow-new)");
    lines.push(line);
    if (detail !== undefined) for (const l of changeLines(f, detail, verbose, s)) lines.push(l);
  }
  return lines;
}

/**
 * The members of a drifted item that changed: from its two contracts when
 * both are known, else unknown. The lock's field digests are advisory (as a
 * tool's, spec 4.2): a hand-edited lock can make them name any member, so
 * the members they name are shown only as unconfirmed.
 */
function changedMembers(f: SurfaceFinding, detail: SurfaceExplained | undefined): string {
  if (f.part === "instructions" || detail?.before === undefined || detail.after === undefined)
    return unknownFieldsText(f.fields ?? []);
  const b = detail.before as Record<string, JsonValue>;
  const a = detail.after as Record<string, JsonValue>;
  const changed = kindById(f.part).fields.filter(
    (m) =>
      diffJson(Object.hasOwn(b, m) ? b[m] : undefined, Object.hasOwn(a, m) ? a[m] : undefined)
        .length > 0,
  );
  return changed.length > 0 ? changed.join(", ") : unknownFieldsText(f.fields ?? []);
}

function what(f: SurfaceFinding): string {
  if (f.part === "instructions") return "instructions";
  const kind = kindById(f.part);
  if (f.key === undefined) {
    return f.status === "added"
      ? `${kind.method} (the server now advertises ${kind.capability})`
      : `${kind.method} (the server no longer advertises ${kind.capability})`;
  }
  return `${kind.noun} ${displayName(f.key)}`;
}

function changeLines(
  f: SurfaceFinding,
  { before, after }: SurfaceExplained,
  verbose: boolean,
  s: Style,
): string[] {
  const lines: string[] = [];
  if (f.part === "instructions") {
    if (before !== undefined && after !== undefined) pushText(lines, "    ", before, after, s);
    else if (after !== undefined) pushWhole(lines, "    ", after);
    return lines;
  }
  if (before === undefined || after === undefined) {
    // An added item is shown whole, as an added tool is: split, never cut.
    if (f.status === "added" && isJsonObject(after)) {
      const kind = kindById(f.part);
      return addedBlock(
        after,
        kind.fields.filter((m) => m !== kind.key),
        verbose,
      );
    }
    if (f.status === "added" && after !== undefined) pushWhole(lines, "    ", after);
    return lines;
  }
  const b = before as Record<string, JsonValue>;
  const a = after as Record<string, JsonValue>;
  for (const member of kindById(f.part).fields) {
    const x = Object.hasOwn(b, member) ? b[member] : undefined;
    const y = Object.hasOwn(a, member) ? a[member] : undefined;
    if (member === "description" && x !== undefined && y !== undefined) {
      if (diffJson(x, y).length === 0) continue;
      lines.push("    description:");
      pushText(lines, "      ", x, y, s);
      continue;
    }
    for (const change of diffJson(x, y, `/${member}`))
      lines.push(`    ${renderJsonChange(change)}`);
  }
  return lines;
}

function pushText(
  lines: string[],
  indent: string,
  before: JsonValue,
  after: JsonValue,
  s: Style,
): void {
  const text =
    typeof before === "string" && typeof after === "string"
      ? renderWordDiff(diffWords(before, after), { removed: s.red, added: s.green })
      : `${renderJsonValue(before)} -> ${renderJsonValue(after)}`;
  for (const l of text.split("\n")) lines.push(`${indent}${l}`);
}

function pushWhole(lines: string[], indent: string, value: JsonValue): void {
  const text =
    typeof value === "string" ? visibleText(value, { multiline: true }) : renderJsonValue(value);
  for (const l of text.split("\n")) lines.push(`${indent}${l}`);
}
