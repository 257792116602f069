import type { ServerDigests } from "../contract/digest.js";
import type { JsonValue } from "../json/json-value.js";
import { digestItem, itemContractOf } from "./items.js";
import type { SurfaceKind } from "../contract/kinds.js";
import { instructionsDigest } from "./surface.js";

/**
 * Whether one served item (a raw prompts/list, resources/templates/list or
 * resources/list element) is what the lock pins for this server: its key is
 * pinned with this very digest. False for a server that does not pin its
 * surface or this kind, and for an item that has no contract (not an
 * object, no key): what is not pinned is never taken as pinned.
 */
export function isPinnedItem(pinned: ServerDigests, kind: SurfaceKind, item: JsonValue): boolean {
  const list = pinned.surface?.[kind.id];
  if (list === undefined || list === null) return false;
  let contract;
  try {
    contract = itemContractOf(kind, item, kind.noun);
  } catch {
    return false;
  }
  const key = contract[kind.key] as string;
  if (!Object.hasOwn(list.items, key)) return false;
  return list.items[key]!.digest === digestItem(kind, contract).digest;
}

/**
 * Whether an `instructions` value (undefined when the result has none) is
 * what the lock pins for this server. False for a server that does not pin
 * its surface, unless it sends no instructions at all.
 */
export function isPinnedInstructions(pinned: ServerDigests, value: JsonValue | undefined): boolean {
  const digest = instructionsDigest(value);
  if (pinned.surface === undefined) return digest === null;
  return pinned.surface.instructions === digest;
}
