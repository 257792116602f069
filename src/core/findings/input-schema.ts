import { getMember, isJsonObject, type JsonObject, type JsonValue } from "../json-value.js";
import { appendPointer, sameJson } from "./diff-json.js";
import { sortKeys } from "../sort-keys.js";
import type { FindingDraft } from "./finding.js";

// Limits whose larger value accepts more, and whose smaller value does.
const UPPER = "maxLength maximum exclusiveMaximum maxItems maxProperties maxContains".split(" ");
const LOWER = "minLength minimum exclusiveMinimum minItems minProperties minContains".split(" ");
// Constraints any change of which may accept more (a regex cannot be compared for inclusion).
const OPAQUE = ["pattern", "format"];
// Keywords holding one subschema that constrains the instance the same way in both versions.
const SUBSCHEMA = ["items", "additionalItems", "contains", "propertyNames", "unevaluatedItems"];
// Keywords holding an object of subschemas, compared member by member.
const SUBSCHEMA_MAPS = ["properties", "patternProperties", "$defs", "definitions"];

/** What a schema accepts: any value (absent, true, {}), none (false), or per its keywords. */
type Schema = JsonObject | "none";

/**
 * The ways an input schema was widened: for each subschema pair (the root,
 * then `properties`, `items`, `$defs` and the like, member by member), a
 * `required` entry removed, a property added, `enum`/`const` widened or
 * removed, a limit relaxed or removed, `additionalProperties` opened, a type
 * widened, a new `anyOf`/`oneOf` branch or `$ref`. Narrowings give nothing.
 * An absent, null or `true` schema accepts anything. Iterative, so a deep
 * schema cannot overflow the stack.
 *
 * @param pointer the JSON Pointer of the schema in the contract (default `/inputSchema`).
 */
export function inputSchemaFindings(
  before: JsonValue | undefined,
  after: JsonValue | undefined,
  pointer = "/inputSchema",
): FindingDraft[] {
  const drafts: FindingDraft[] = [];
  const stack: [string, JsonValue | undefined, JsonValue | undefined][] = [
    [pointer, before, after],
  ];
  while (stack.length > 0) {
    const [at, oldValue, newValue] = stack.pop()!;
    const o = schema(oldValue);
    const n = schema(newValue);
    if (o === "none") {
      if (n !== "none") drafts.push(draft("input-type-widened", at, false, newValue));
      continue;
    }
    if (n === "none") continue;
    const children: [string, JsonValue | undefined, JsonValue | undefined][] = [];
    checkType(o, n, at, drafts);
    checkValues(o, n, at, drafts);
    checkLimits(o, n, at, drafts);
    checkRequired(o, n, at, drafts);
    for (const map of SUBSCHEMA_MAPS) {
      const om = objectMember(o, map);
      const nm = objectMember(n, map);
      const addsProperty = map === "properties" || map === "patternProperties";
      const keys = Object.keys(nm);
      sortKeys(keys);
      for (const key of keys) {
        const where = appendPointer(appendPointer(at, map), key);
        if (Object.hasOwn(om, key)) children.push([where, getMember(om, key), getMember(nm, key)]);
        else if (addsProperty) {
          const was = acceptedBefore(o);
          if (was === undefined)
            drafts.push(draft("input-property-added", where, undefined, getMember(nm, key)));
          else children.push([where, was, getMember(nm, key)]);
        }
      }
    }
    for (const key of ["additionalProperties", "unevaluatedProperties"]) {
      const ov = getMember(o, key);
      const nv = getMember(n, key);
      const opened =
        (ov === false && nv !== false) || (isJsonObject(ov) && (nv === undefined || nv === true));
      if (opened)
        drafts.push(draft("input-additional-properties-opened", appendPointer(at, key), ov, nv));
      else if (isJsonObject(ov) && isJsonObject(nv))
        children.push([appendPointer(at, key), ov, nv]);
    }
    for (const key of SUBSCHEMA) {
      const ov = getMember(o, key);
      const nv = getMember(n, key);
      if (ov === undefined) continue;
      if (Array.isArray(ov) && Array.isArray(nv)) {
        ov.forEach((item, i) =>
          children.push([appendPointer(appendPointer(at, key), i), item, nv[i]]),
        );
      } else if (!Array.isArray(ov) && !Array.isArray(nv)) {
        children.push([appendPointer(at, key), ov, nv]);
      }
    }
    checkBranches(o, n, at, drafts, children);
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  return drafts;
}

/**
 * What an old object schema already accepted for a member it did not list,
 * or undefined when a new listed member is a new argument: its
 * `additionalProperties` schema when that is one (the new property is
 * compared with it); any value (`{}`) when it listed no properties at all
 * and left additional ones open, so it accepted anything and a typed
 * property narrows it. A schema that lists its properties describes the
 * arguments a model sends: a new one is a new argument even when
 * `additionalProperties` was left open, and none is accepted past `false`.
 */
function acceptedBefore(o: JsonObject): JsonValue | undefined {
  const closed = (key: string) => getMember(o, key) === false;
  if (closed("additionalProperties") || closed("unevaluatedProperties")) return undefined;
  const extra = getMember(o, "additionalProperties");
  if (isJsonObject(extra) && Object.keys(extra).length > 0) return extra;
  const listed = (key: string) => Object.keys(objectMember(o, key)).length > 0;
  return listed("properties") || listed("patternProperties") ? undefined : {};
}

function checkType(o: JsonObject, n: JsonObject, at: string, drafts: FindingDraft[]): void {
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

function checkValues(o: JsonObject, n: JsonObject, at: string, drafts: FindingDraft[]): void {
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

function checkLimits(o: JsonObject, n: JsonObject, at: string, drafts: FindingDraft[]): void {
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

function checkRequired(o: JsonObject, n: JsonObject, at: string, drafts: FindingDraft[]): void {
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

function checkBranches(
  o: JsonObject,
  n: JsonObject,
  at: string,
  drafts: FindingDraft[],
  children: [string, JsonValue | undefined, JsonValue | undefined][],
): void {
  for (const key of ["anyOf", "oneOf"]) {
    const ov = getMember(o, key);
    const nv = getMember(n, key);
    if (!Array.isArray(ov)) continue;
    if (!Array.isArray(nv)) {
      drafts.push(draft("input-type-widened", appendPointer(at, key), ov, nv));
      continue;
    }
    nv.forEach((branch, i) => {
      if (!ov.some((old) => sameJson(old, branch)))
        drafts.push(
          draft("input-branch-added", appendPointer(appendPointer(at, key), i), undefined, branch),
        );
    });
  }
  const oldAll = getMember(o, "allOf");
  const newAll = getMember(n, "allOf");
  if (Array.isArray(oldAll) && Array.isArray(newAll)) {
    oldAll.forEach((item, i) =>
      children.push([appendPointer(appendPointer(at, "allOf"), i), item, newAll[i]]),
    );
  }
  const oldRef = getMember(o, "$ref");
  const newRef = getMember(n, "$ref");
  if (newRef !== undefined && !(oldRef !== undefined && sameJson(oldRef, newRef))) {
    drafts.push(draft("input-branch-added", appendPointer(at, "$ref"), oldRef, newRef));
  }
}

function schema(value: JsonValue | undefined): Schema {
  if (value === false) return "none";
  return isJsonObject(value) ? value : {};
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

function objectMember(s: JsonObject, key: string): JsonObject {
  const value = getMember(s, key);
  return isJsonObject(value) ? value : {};
}

function draft(
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
