import { getMember, type JsonObject, type JsonValue } from "../json/json-value.js";
import { sameJson } from "./diff-json.js";
import { appendPointer } from "../json/json-pointer.js";
import type { FindingDraft } from "./finding.js";

// The checks of one subschema pair that look only at its own keywords (no
// subschemas): what input-schema.ts runs at each pair it walks.

// Limits whose larger value accepts more, and whose smaller value does.
const UPPER = "maxLength maximum exclusiveMaximum maxItems maxProperties maxContains".split(" ");
const LOWER = "minLength minimum exclusiveMinimum minItems minProperties minContains".split(" ");
// Constraints any change of which may accept more (a regex cannot be compared for inclusion).
const OPAQUE = ["pattern", "format"];

/** A `type` that now allows a kind of value it did not (integer is inside number), or was removed. */
export function checkType(o: JsonObject, n: JsonObject, at: string, drafts: FindingDraft[]): void {
  const oldTypes = types(getMember(o, "type"));
  if (oldTypes === undefined) return;
  const newTypes = types(getMember(n, "type"));
  const covered = (t: string) => oldTypes.has(t) || (t === "integer" && oldTypes.has("number"));
  if (newTypes === undefined || [...newTypes].some((t) => !covered(t))) {
    drafts.push(
      draft(
        "input-type-widened",
        appendPointer(at, "type"),
        getMember(o, "type"),
        getMember(n, "type"),
      ),
    );
  }
}

/** An `enum` or `const` that now allows a value it did not, or was removed. */
export function checkValues(
  o: JsonObject,
  n: JsonObject,
  at: string,
  drafts: FindingDraft[],
): void {
  const oldKey = Object.hasOwn(o, "const")
    ? "const"
    : Object.hasOwn(o, "enum")
      ? "enum"
      : undefined;
  if (oldKey === undefined) return;
  const oldValues = allowed(o);
  const newKey = Object.hasOwn(n, "const")
    ? "const"
    : Object.hasOwn(n, "enum")
      ? "enum"
      : undefined;
  if (oldValues === undefined) return; // not a list: the schema is not valid JSON Schema here
  if (newKey === undefined) {
    drafts.push(
      draft("input-enum-widened", appendPointer(at, oldKey), getMember(o, oldKey), undefined),
    );
    return;
  }
  const newValues = allowed(n) ?? [];
  // Scalars by a set (SameValueZero: -0 is 0, as in canonical JSON); objects one by one.
  const scalars = new Set(oldValues.filter((v) => v === null || typeof v !== "object"));
  const objects = oldValues.filter((v) => v !== null && typeof v === "object");
  const extra = newValues.filter((v) =>
    v === null || typeof v !== "object" ? !scalars.has(v) : !objects.some((w) => sameJson(v, w)),
  );
  if (extra.length > 0) {
    drafts.push(
      draft(
        "input-enum-widened",
        appendPointer(at, newKey),
        getMember(o, oldKey),
        getMember(n, newKey),
      ),
    );
  }
}

/** A limit loosened or removed; any change of `pattern` or `format`. */
export function checkLimits(
  o: JsonObject,
  n: JsonObject,
  at: string,
  drafts: FindingDraft[],
): void {
  for (const key of [...UPPER, ...LOWER, ...OPAQUE, "uniqueItems"]) {
    const ov = getMember(o, key);
    const nv = getMember(n, key);
    if (ov === undefined) continue;
    let relaxed: boolean;
    if (typeof ov === "number") {
      relaxed =
        typeof nv !== "number" || (UPPER.includes(key) ? nv > ov : LOWER.includes(key) && nv < ov);
    } else if (ov === true) {
      relaxed = nv !== true; // uniqueItems, or a draft-4 boolean exclusive bound
    } else {
      relaxed = OPAQUE.includes(key) && (nv === undefined || !sameJson(ov, nv));
    }
    if (relaxed) drafts.push(draft("input-constraint-relaxed", appendPointer(at, key), ov, nv));
  }
}

/** A `required` entry removed: one finding with both lists. */
export function checkRequired(
  o: JsonObject,
  n: JsonObject,
  at: string,
  drafts: FindingDraft[],
): void {
  const oldRequired = getMember(o, "required");
  if (!Array.isArray(oldRequired)) return;
  const newRequired = getMember(n, "required");
  const still = Array.isArray(newRequired) ? newRequired : [];
  // One finding for the list, with both lists: the reader sees which names went.
  if (oldRequired.some((name) => typeof name === "string" && !still.includes(name))) {
    drafts.push(
      draft("input-required-removed", appendPointer(at, "required"), oldRequired, newRequired),
    );
  }
}

function types(value: JsonValue | undefined): Set<string> | undefined {
  if (typeof value === "string") return new Set([value]);
  if (Array.isArray(value)) return new Set(value.filter((t): t is string => typeof t === "string"));
  return undefined;
}

function allowed(s: JsonObject): JsonValue[] | undefined {
  if (Object.hasOwn(s, "const")) return [getMember(s, "const")!];
  const values = getMember(s, "enum");
  return Array.isArray(values) ? values : undefined;
}

/** A finding draft at `pointer`, with the values that are present. */
export function draft(
  rule: FindingDraft["rule"],
  pointer: string,
  before: JsonValue | undefined,
  after: JsonValue | undefined,
): FindingDraft {
  const d: FindingDraft = { rule, pointer };
  if (before !== undefined) d.before = before;
  if (after !== undefined) d.after = after;
  return d;
}
