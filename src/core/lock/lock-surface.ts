import { serverDigest } from "../contract/digest.js";
import { getMember, type JsonValue } from "../json/json-value.js";
import { corrupt, digestAt, object, onlyKeys, validateItems } from "./lock-shape.js";
import type { ItemDigests, ListDigests } from "../surface/items.js";
import { SURFACE_KINDS, type SurfaceKind } from "../contract/kinds.js";
import type { SurfaceDigests } from "../surface/surface.js";

/**
 * Checks a server's `surface` member (SPEC.md 10.4) as strictly as the rest
 * of the lock: every kind that is not opt-in present (null or a list),
 * `resources` only when pinned, no other key, each list's `count` and
 * `digest` following from its items.
 *
 * @throws ContractpinError LOCK_CORRUPT naming the offending key.
 */
export function validateSurface(value: JsonValue, where: string): SurfaceDigests {
  const surface = object(value, where);
  onlyKeys(surface, where, ["instructions", ...SURFACE_KINDS.map((k) => k.id)]);
  const instructions = getMember(surface, "instructions");
  if (instructions === undefined) corrupt(`${where}.instructions`, "is missing (null when none)");
  const out: SurfaceDigests = {
    instructions: instructions === null ? null : digestAt(instructions, `${where}.instructions`),
    prompts: null,
    resource_templates: null,
  };
  for (const kind of SURFACE_KINDS) {
    const list = getMember(surface, kind.id);
    if (list === undefined) {
      if (kind.optIn) continue;
      corrupt(`${where}.${kind.id}`, "is missing (null when the server does not list them)");
    }
    out[kind.id] = list === null ? null : validateList(kind, list, `${where}.${kind.id}`);
  }
  return out;
}

function validateList(kind: SurfaceKind, value: JsonValue, where: string): ListDigests {
  const list = object(value, where);
  onlyKeys(list, where, ["count", "digest", "items"]);
  const { items, keys, count } = validateItems(
    getMember(list, "items"),
    `${where}.items`,
    kind.fields,
    {
      value: getMember(list, "count"),
      where: `${where}.count`,
      problem: (n) => `it has ${n} ${kind.noun}s`,
    },
  );
  const digest = digestAt(getMember(list, "digest"), `${where}.digest`);
  if (digest !== serverDigest(keys)) {
    corrupt(`${where}.digest`, `does not match the digest of its ${kind.noun}s' digests`);
  }
  return { count, digest, items: items as Record<string, ItemDigests> };
}
