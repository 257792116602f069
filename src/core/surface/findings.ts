import { toFinding, type Finding, type FindingDraft } from "../findings/finding.js";
import type { NamedPart } from "../findings/name-skeleton.js";
import { stringFindings, textFindings } from "../findings/text-checks.js";
import { getMember, isJsonObject, type JsonValue } from "../json/json-value.js";
import { partPointer, type SurfaceExplained, type SurfaceFinding } from "../contract/compare.js";
import { kindById, PROMPTS } from "../contract/kinds.js";
import type { SurfaceContracts } from "./surface.js";

/**
 * The classified findings of one surface part that moved (SPEC.md 10.6),
 * about the server (no `tool`), with a JSON Pointer into its surface:
 * `/instructions`, `/prompts/<name>/description`, `/resource_templates`.
 * The text rules run over instructions and every string of a prompt or
 * template as they run over a tool's description; a directive gained by
 * the instructions, which a client puts into the model's context on every
 * turn, is `instructions-directive` (high); an argument a drifted prompt
 * gained is `prompt-argument-added` (medium). Every part that moved gives at
 * least one finding, so that no CI format can miss it. An added prompt or
 * template whose name reads like another name of the server (`alike`, from
 * lookAlikes over namedParts: a tool's, a prompt's, a template's) is
 * `name-confusable`. Pure.
 */
export function surfaceFindings(
  server: string,
  f: SurfaceFinding,
  { before, after }: SurfaceExplained = {},
  alike: (name: string) => NamedPart[] = () => [],
): Finding[] {
  const base = partPointer(f);
  const drafts: FindingDraft[] = [];
  if (f.status === "removed") drafts.push({ rule: "surface-removed", pointer: base });
  else if (f.status === "added") {
    drafts.push({ rule: "surface-added", pointer: base });
    if (after !== undefined) drafts.push(...textOf(f, undefined, after, base));
    const name = isJsonObject(after) ? getMember(after, "name") : undefined;
    const twin = typeof name === "string" ? alike(name)[0] : undefined;
    if (f.part !== "instructions" && kindById(f.part).lookAlike && twin !== undefined) {
      const pointer = `${base}/name`;
      drafts.push({ rule: "name-confusable", pointer, before: twin.name, after: name! });
    }
  } else if (f.status === "drifted") {
    if (before === undefined || after === undefined) {
      const draft: FindingDraft = { rule: "surface-drifted", pointer: base };
      if (f.fields !== undefined && f.fields.length > 0) draft.after = [...f.fields];
      drafts.push(draft);
    } else {
      drafts.push(...textOf(f, before, after, base));
      if (f.part === PROMPTS.id) drafts.push(...argumentsAdded(before, after, base));
      if (drafts.length === 0) drafts.push({ rule: "surface-changed", pointer: base });
    }
  }
  return drafts.map((d) => toFinding(d, undefined, server));
}

function textOf(
  f: SurfaceFinding,
  before: JsonValue | undefined,
  after: JsonValue,
  base: string,
): FindingDraft[] {
  if (f.part === "instructions") {
    const drafts = textFindings(str(before), str(after) ?? "", base);
    // Instructions are read on every turn, in the most trusted place: a directive there is high.
    return drafts.map((d) =>
      d.rule === "description-directive" ? { ...d, rule: "instructions-directive" } : d,
    );
  }
  const drafts: FindingDraft[] = [];
  const b = isJsonObject(before) ? before : undefined;
  const a = isJsonObject(after) ? after : {};
  for (const field of kindById(f.part).fields) {
    const x = b === undefined ? undefined : getMember(b, field);
    const y = getMember(a, field);
    const pointer = `${base}/${field}`;
    if (field === "description") {
      if (typeof y === "string" && y !== x) drafts.push(...textFindings(str(x), y, pointer));
    } else drafts.push(...stringFindings(x, y, pointer));
  }
  return drafts;
}

/**
 * A `prompt-argument-added` finding for each argument of the prompt `after`
 * whose name no argument of `before` has: a client asks the user for it (or
 * lets the model fill it in) and sends its value to the server. Arguments
 * are kept as served (SPEC.md 10.2): only objects with a string `name`
 * count, and `arguments` that is not an array has none.
 */
function argumentsAdded(before: JsonValue, after: JsonValue, base: string): FindingDraft[] {
  const names = (prompt: JsonValue): (string | undefined)[] => {
    const args = isJsonObject(prompt) ? getMember(prompt, "arguments") : undefined;
    if (!Array.isArray(args)) return [];
    return args.map((arg) => {
      const name = isJsonObject(arg) ? getMember(arg, "name") : undefined;
      return typeof name === "string" ? name : undefined;
    });
  };
  const had = new Set(names(before));
  const drafts: FindingDraft[] = [];
  names(after).forEach((name, i) => {
    if (name !== undefined && !had.has(name))
      drafts.push({
        rule: "prompt-argument-added",
        pointer: `${base}/arguments/${i}`,
        after: name,
      });
  });
  return drafts;
}

function str(value: JsonValue | undefined): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** The contract of a surface part as read (a live read or a dump), or undefined. */
export function partOf(
  contracts: SurfaceContracts | undefined,
  f: Pick<SurfaceFinding, "part" | "key">,
): JsonValue | undefined {
  if (contracts === undefined) return undefined;
  if (f.part === "instructions") return contracts.instructions;
  if (f.key === undefined) return undefined;
  const kind = kindById(f.part);
  return (contracts[f.part] ?? []).find((c) => getMember(c, kind.key) === f.key);
}
