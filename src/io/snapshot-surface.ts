import { digestIs, isPinnedEntry } from "../core/contract/digest.js";
import {
  getMember,
  isJsonObject,
  setMember,
  type JsonObject,
  type JsonValue,
} from "../core/json/json-value.js";
import type { SurfaceFinding } from "../core/contract/compare.js";
import { SURFACE_KINDS, kindById } from "../core/contract/kinds.js";
import type { ItemContract } from "../core/surface/items.js";
import type { SurfaceContracts, SurfaceDigests } from "../core/surface/surface.js";

/**
 * The surface part of the contract snapshots (SPEC.md 10.9): the member
 * `surfaces`, by server, `{"instructions": <value>, "prompts": {<name>:
 * <contract>}, "resource_templates": {...}, "resources": {...}}`. Like the
 * tools' entries, an entry is used only when its digest, as stored, is the
 * lock's: it never feeds a digest or a verdict.
 */
export type SurfaceSnapshots = Record<string, JsonObject>;

/** One server's surface entry, from the contracts a pin read. */
export function surfaceEntry(contracts: SurfaceContracts): JsonObject {
  const entry: JsonObject = {};
  if (contracts.instructions !== undefined) entry["instructions"] = contracts.instructions;
  for (const kind of SURFACE_KINDS) {
    const items = contracts[kind.id];
    if (items === undefined) continue;
    const byKey: JsonObject = {};
    for (const item of items) setMember(byKey, item[kind.key] as string, item);
    entry[kind.id] = byKey;
  }
  return entry;
}

/** The entry's parts that still match `pinned` (the others dropped), or undefined when none does. */
export function prunedSurfaceEntry(
  entry: JsonValue | undefined,
  pinned: SurfaceDigests | undefined,
): JsonObject | undefined {
  if (!isJsonObject(entry) || pinned === undefined) return undefined;
  const out: JsonObject = {};
  const instructions = getMember(entry, "instructions");
  if (instructions !== undefined && digestIs(instructions, pinned.instructions))
    out["instructions"] = instructions;
  for (const kind of SURFACE_KINDS) {
    const items = getMember(entry, kind.id);
    const list = pinned[kind.id];
    if (!isJsonObject(items) || list === undefined || list === null) continue;
    const kept: JsonObject = {};
    for (const key of Object.keys(items)) {
      const item = items[key]!;
      const digest = Object.hasOwn(list.items, key) ? list.items[key]!.digest : undefined;
      if (isPinnedEntry(item, kind.key, key, digest ?? null)) setMember(kept, key, item);
    }
    out[kind.id] = kept;
  }
  return Object.keys(out).length === 0 ? undefined : out;
}

/** The pinned contract of a surface part that moved, from a server's entry, when it matches the lock. */
export function pinnedPart(
  entry: JsonValue | undefined,
  finding: SurfaceFinding,
): JsonValue | undefined {
  if (!isJsonObject(entry) || finding.pinned === undefined) return undefined;
  if (finding.part === "instructions") {
    const value = getMember(entry, "instructions");
    return value !== undefined && digestIs(value, finding.pinned) ? value : undefined;
  }
  if (finding.key === undefined) return undefined;
  const items = getMember(entry, finding.part);
  const item = isJsonObject(items) ? getMember(items, finding.key) : undefined;
  const kind = kindById(finding.part);
  return isPinnedEntry(item, kind.key, finding.key, finding.pinned) ? item : undefined;
}

/**
 * The pinned surface of a server as its snapshot entry keeps it: every part
 * the lock pins whose entry matches the lock's digest, in the lock's order,
 * and the parts that have none (`instructions`, `prompts/x`), which cannot
 * be read back.
 */
export function pinnedSurface(
  entry: JsonValue | undefined,
  pinned: SurfaceDigests,
): { contracts: SurfaceContracts; missing: string[] } {
  const contracts: SurfaceContracts = {};
  const missing: string[] = [];
  if (pinned.instructions !== null) {
    const value = pinnedPart(entry, {
      part: "instructions",
      status: "unchanged",
      pinned: pinned.instructions,
    });
    if (value === undefined) missing.push("instructions");
    else contracts.instructions = value;
  }
  for (const kind of SURFACE_KINDS) {
    const list = pinned[kind.id];
    if (list === undefined || list === null) continue;
    const items: ItemContract[] = [];
    for (const key of Object.keys(list.items).sort()) {
      const f = {
        part: kind.id,
        key,
        status: "unchanged",
        pinned: list.items[key]!.digest,
      } as const;
      const item = pinnedPart(entry, f);
      if (isJsonObject(item)) items.push(item as ItemContract);
      else missing.push(`${kind.id}/${key}`);
    }
    contracts[kind.id] = items;
  }
  return { contracts, missing };
}
