/**
 * Side pins (SPEC.md 13): members outside a contract that decide what the
 * model sees, recorded beside an item's digest and never inside one. Which
 * members they are is the kind table's (`Kind.sidePins`); this reads them.
 */
import { getMember, isJsonObject, type JsonValue } from "../json/json-value.js";
import type { SidePinDigests } from "./digest-types.js";
import type { SidePin } from "./kinds.js";

/**
 * The served value of a side pin, exactly as served: every step of its path
 * but the last must be an object that has the member, the last member may
 * hold any value (null included). Undefined when any step is missing or is
 * not an object: the lock then records no member.
 */
export function sidePinValue(pin: SidePin, item: JsonValue): JsonValue | undefined {
  let node: JsonValue | undefined = item;
  for (const step of pin.path) {
    if (!isJsonObject(node)) return undefined;
    node = getMember(node, step);
    if (node === undefined) return undefined;
  }
  return node;
}

/**
 * The side pins that moved between two lock entries of one item: a digest
 * that differs, or that one side records and the other does not (a lock
 * written before the pin existed records none, so a tool that carries one
 * moves once, until `contractpin update` records it).
 */
export function movedSidePins(
  pins: readonly SidePin[],
  before: Readonly<SidePinDigests>,
  after: Readonly<SidePinDigests>,
): SidePin[] {
  return pins.filter((p) => before[p.member] !== after[p.member]);
}
