import {
  partAt,
  type ServerFinding,
  surfaceKey,
  type SurfaceExplained,
  type SurfaceFinding,
} from "../../core/contract/compare.js";
import { diffJson, renderJsonValue } from "../../core/findings/diff-json.js";
import type { Finding } from "../../core/findings/finding.js";
import { isJsonObject, type JsonValue } from "../../core/json/json-value.js";
import { kindById } from "../../core/contract/kinds.js";
import type { ServerExplained } from "../../engine/explain-server.js";
import { changeEntries, plainMembers, type ItemMembers } from "./change-entries.js";
import { unknownFieldsText } from "./changed-fields.js";
import type { ItemBlock } from "./item-block.js";
import { addedBlock } from "./item-text.js";
import { displayName } from "./style.js";

/**
 * The blocks of a server's surface parts (SPEC.md 10.6), after its tools: one
 * per part that is not unchanged (every part with `verbose`), written as a
 * tool's block is: the part whole when added, else its findings with the
 * changes they are about (a word diff of instructions and descriptions, JSON
 * Pointer lines for the other members), relative to the part as a tool's
 * are to the tool (`byPart`, from surfaceFindingsByPart). Server text goes
 * through visibleText / displayName.
 */
export function surfaceBlocks(
  server: ServerFinding,
  explained: ServerExplained | undefined,
  verbose: boolean,
  byPart: ReadonlyMap<string, Finding[]>,
): ItemBlock[] {
  const blocks: ItemBlock[] = [];
  for (const f of server.surface ?? []) {
    if (f.status === "unchanged" && !verbose) continue;
    const detail = explained?.surface?.get(surfaceKey(f));
    const found = byPart.get(surfaceKey(f)) ?? [];
    const members = membersOf(f);
    const before = asItem(f, detail?.before);
    const after = asItem(f, detail?.after);
    const block: ItemBlock = { status: f.status, label: labelOf(f), entries: [] };
    if (f.status === "drifted" && f.part !== "instructions")
      block.changed = changedMembers(f, detail);
    // An added part is shown whole, as an added tool is: split, never cut;
    // so are new instructions no snapshot can compare.
    const whole =
      f.status === "added" || (f.part === "instructions" && f.status === "drifted" && !before);
    if (whole && after !== undefined) block.whole = wholeLines(f, after, verbose);
    else if (whole && detail?.after !== undefined)
      block.whole = [`    ${renderJsonValue(detail.after, { maxLength: Infinity })}`];
    block.entries = changeEntries(whole ? undefined : before, after, found, { verbose, members });
    blocks.push(block);
  }
  return blocks;
}

/**
 * A server's findings split into those about one of its surface parts that
 * moved (by surfaceKey, each pointer made relative to the part, as a tool's
 * findings are to the tool: partFinding), which are shown in the part's
 * block, and the rest (the server's own: its launch line, its artifact),
 * shown under its head line. A finding about a part that has no block of its
 * own stays with the server's: no finding is left unshown.
 */
export function surfaceFindingsByPart(
  server: ServerFinding,
  explained: ServerExplained | undefined,
): { byPart: Map<string, Finding[]>; own: Finding[] } {
  const byPart = new Map<string, Finding[]>();
  const own: Finding[] = [];
  const blocks = new Set(
    (server.surface ?? []).filter((f) => f.status !== "unchanged").map(surfaceKey),
  );
  for (const finding of explained?.findings ?? []) {
    const at = partFinding(finding);
    if (at === undefined || !blocks.has(at.key)) {
      own.push(finding);
      continue;
    }
    const list = byPart.get(at.key);
    if (list === undefined) byPart.set(at.key, [at.finding]);
    else list.push(at.finding);
  }
  return { byPart, own };
}

/**
 * The surface part a finding is about (its surfaceKey and what a report
 * calls it) and the finding with its pointer relative to the part:
 * `/description` for `/prompts/leak/description`, none for the part itself;
 * the instructions are the member `/instructions` of their part, so theirs
 * stays. Undefined for a finding about a tool or about the server itself.
 */
export function partFinding(
  finding: Finding,
): { key: string; label: string; finding: Finding } | undefined {
  if (finding.tool !== undefined || finding.pointer === undefined) return undefined;
  const at = partAt(finding.pointer);
  if (at === undefined) return undefined;
  const part = at.key === undefined ? { part: at.part } : { part: at.part, key: at.key };
  const relative: Finding = { ...finding };
  if (at.rest === "") delete relative.pointer;
  else relative.pointer = at.rest;
  return { key: surfaceKey(part), label: partLabel(part), finding: relative };
}

/** The members a report compares of a part: the instructions' text, or its kind's fields. */
function membersOf(f: SurfaceFinding): ItemMembers {
  return plainMembers(f.part === "instructions" ? ["instructions"] : kindById(f.part).fields);
}

/** A part's contract as an item with members: the instructions as `{instructions}`. */
function asItem(
  f: SurfaceFinding,
  value: JsonValue | undefined,
): Readonly<Record<string, JsonValue>> | undefined {
  if (value === undefined) return undefined;
  if (f.part === "instructions") return { instructions: value };
  return isJsonObject(value) ? value : undefined;
}

function wholeLines(
  f: SurfaceFinding,
  after: Readonly<Record<string, JsonValue>>,
  verbose: boolean,
): string[] {
  if (f.part === "instructions") return addedBlock(after, [], verbose, "instructions");
  const kind = kindById(f.part);
  return addedBlock(
    after,
    kind.fields.filter((m) => m !== kind.key),
    verbose,
  );
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

/** What a report calls a part in its block's head line. */
function labelOf(f: SurfaceFinding): string {
  if (f.part === "instructions" || f.key !== undefined) return partLabel(f);
  const kind = kindById(f.part);
  return f.status === "added"
    ? `${kind.method} (the server now advertises ${kind.capability})`
    : `${kind.method} (the server no longer advertises ${kind.capability})`;
}

/** What a report calls a part: `instructions`, `prompt <name>`, a list by its method. */
function partLabel(f: Pick<SurfaceFinding, "part" | "key">): string {
  if (f.part === "instructions") return "instructions";
  const kind = kindById(f.part);
  return f.key === undefined ? kind.method : `${kind.noun} ${displayName(f.key)}`;
}
