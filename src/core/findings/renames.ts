import { canonicalize } from "../json/canonical-json.js";
import type { Contract } from "../contract/contract.js";
import type { JsonValue } from "../json/json-value.js";
import { sameJson } from "./diff-json.js";

/**
 * Pairs each removed tool with the first added tool (by name) that carries
 * its contract: the same schemas and annotations, found through one index,
 * and the same description once the old name in it reads as the new one.
 *
 * @returns the removed tool's contract by the name of the tool that replaces it.
 */
export function renames(
  names: readonly string[],
  known: ReadonlySet<string>,
  pinnedByName: ReadonlyMap<string, Contract>,
  liveByName: ReadonlyMap<string, Contract>,
  isLive: (name: string) => boolean,
): Map<string, Contract> {
  const added = new Map<string, Contract[]>();
  for (const name of names) {
    const contract = liveByName.get(name);
    if (known.has(name) || contract === undefined) continue;
    const key = shapeKey(contract);
    // Pushed, not spread: many tools of one shape (a first pin) must stay linear.
    const same = added.get(key);
    if (same === undefined) added.set(key, [contract]);
    else same.push(contract);
  }
  const renamedFrom = new Map<string, Contract>();
  if (added.size === 0) return renamedFrom;
  for (const name of names) {
    const old = pinnedByName.get(name);
    if (old === undefined || isLive(name) || liveByName.has(name)) continue;
    const heir = added.get(shapeKey(old))?.find((c) => {
      if (renamedFrom.has(c.name)) return false;
      const { description } = old;
      const renamed =
        typeof description === "string" ? description.replaceAll(old.name, c.name) : description;
      return sameJson(renamed, c.description);
    });
    if (heir !== undefined) renamedFrom.set(heir.name, old);
  }
  return renamedFrom;
}

/** The canonical JSON of everything in a contract but its name and description. */
function shapeKey(c: Contract): string {
  const shape: Record<string, JsonValue> = { inputSchema: c.inputSchema };
  if (c.outputSchema !== undefined) shape["outputSchema"] = c.outputSchema;
  if (c.annotations !== undefined) shape["annotations"] = c.annotations;
  return canonicalize(shape);
}
