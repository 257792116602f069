import { CanonicalWriter } from "../json/canonical-bytes.js";
import { countCodePoints } from "../contract/contract.js";
import { digestOfCanonical, serverDigest } from "../contract/digest.js";
import type { Digest, ItemDigests, ListDigests } from "../contract/digest-types.js";
import { ContractpinError } from "../errors.js";
import { getMember, isJsonObject, setMember, type JsonValue } from "../json/json-value.js";
import { MAX_TOOL_NAME_CHARS } from "../limits.js";
import type { SurfaceKind } from "../contract/kinds.js";

export type { ItemDigests, ListDigests } from "../contract/digest-types.js";

/** The contract of one prompt, resource template or resource (SPEC.md 10.2): its kind's fields only. */
export type ItemContract = Record<string, JsonValue>;

/**
 * Projects one listed item onto its kind's contract: the `always` members
 * (null when absent or null) and the `optional` ones served with a value
 * other than null; nothing inside a value is reordered or pruned.
 *
 * @throws ContractpinError the kind's notObject, or keyInvalid when the key
 *   member is not a string or is longer than {@link MAX_TOOL_NAME_CHARS} characters.
 */
export function itemContractOf(kind: SurfaceKind, item: JsonValue, where: string): ItemContract {
  if (!isJsonObject(item)) {
    throw new ContractpinError(kind.codes.notObject, `${where} is not an object`);
  }
  const key = getMember(item, kind.key);
  if (typeof key !== "string") {
    throw new ContractpinError(
      kind.codes.keyInvalid,
      `${where} has ${key === undefined ? "no" : "a non-string"} ${kind.key}`,
    );
  }
  if (key.length > MAX_TOOL_NAME_CHARS && countCodePoints(key) > MAX_TOOL_NAME_CHARS) {
    throw new ContractpinError(
      kind.codes.keyInvalid,
      `${where} has a ${kind.key} longer than ${MAX_TOOL_NAME_CHARS} characters, the most contractpin accepts`,
    );
  }
  const contract: ItemContract = {};
  for (const field of kind.fields) {
    const value = getMember(item, field);
    // Field names are the kind's own, never `__proto__`.
    if (kind.always.includes(field)) contract[field] = value ?? null;
    else if (value !== undefined && value !== null) contract[field] = value;
  }
  return contract;
}

// One writer for items, reused: digesting is synchronous.
const writer = new CanonicalWriter();

/**
 * The digest of an item's contract and of each of its members, from one
 * canonicalization: each member's digest is the hash of its span (as for tools).
 */
export function digestItem(kind: SurfaceKind, contract: ItemContract): ItemDigests {
  writer.reset();
  writer.raw("{");
  const spans: [string, number, number][] = [];
  for (const field of kind.fields) {
    if (!Object.hasOwn(contract, field)) continue;
    // Field names are plain ASCII: their quoted form is their canonical form.
    writer.raw(`${spans.length > 0 ? "," : ""}"${field}":`);
    const start = writer.pos;
    writer.value(contract[field], 1);
    spans.push([field, start, writer.pos]);
  }
  writer.raw("}");
  const digest = digestOfCanonical(writer.bytes());
  const fields: Record<string, Digest> = {};
  for (const [field, start, end] of spans)
    fields[field] = digestOfCanonical(writer.bytes(start, end));
  return { digest, fields };
}

/**
 * Digests one kind's whole list (every page, in order): each item's
 * contract and digests, keyed by the kind's key, and the list digest.
 *
 * @throws ContractpinError the kind's duplicate code for a key served twice
 *   (compared after JSON unescaping), or those of {@link itemContractOf}.
 */
export function digestItems(
  kind: SurfaceKind,
  items: readonly JsonValue[],
): { digests: ListDigests; contracts: ItemContract[] } {
  const byKey = new Map<string, ItemDigests>();
  const contracts: ItemContract[] = [];
  items.forEach((item, index) => {
    const where = `${kind.noun} ${index}`;
    const contract = itemContractOf(kind, item, where);
    const key = contract[kind.key] as string;
    if (byKey.has(key)) {
      throw new ContractpinError(
        kind.codes.duplicate,
        `two ${kind.noun}s have the ${kind.key} ${JSON.stringify(key)} (${where} repeats an earlier one)`,
      );
    }
    byKey.set(key, digestItem(kind, contract));
    contracts.push(contract);
  });
  const out: Record<string, ItemDigests> = {};
  const keys: Record<string, string> = {};
  for (const [key, digests] of byKey) {
    setMember(out, key, digests);
    setMember(keys, key, digests.digest);
  }
  return { digests: { count: byKey.size, digest: serverDigest(keys), items: out }, contracts };
}
