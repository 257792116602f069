import { getMember, isJsonObject, type JsonObject, type JsonValue } from "../json/json-value.js";
import { sameJson } from "./diff-json.js";
import { appendPointer } from "../json/json-pointer.js";
import { sortKeys } from "../json/sort-keys.js";
import type { FindingDraft } from "./finding.js";
import { checkLimits, checkRequired, checkType, checkValues, draft } from "./input-checks.js";

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

function objectMember(s: JsonObject, key: string): JsonObject {
  const value = getMember(s, key);
  return isJsonObject(value) ? value : {};
}
