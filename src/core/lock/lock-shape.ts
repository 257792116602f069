import type { Digest } from "../contract/digest.js";
import type { SidePinDigests, SidePinMember } from "../contract/digest-types.js";
import { ContractpinError, type LockErrorCode } from "../errors.js";
import {
  getMember,
  isJsonObject,
  pathKey,
  setMember,
  type JsonObject,
  type JsonValue,
} from "../json/json-value.js";

// The checks every part of the lock's validation shares (lock.ts, lock-surface.ts): one
// check of keyed items for every kind.

const DIGEST = /^sha256:[0-9a-f]{64}$/;

/** Shared lock check. */
export function object(value: JsonValue | undefined, where: string): JsonObject {
  if (!isJsonObject(value))
    corrupt(where, value === undefined ? "is missing" : "must be an object");
  return value;
}

/** Shared lock check. */
export function onlyKeys(obj: JsonObject, where: string, allowed: string[]): void {
  for (const key of Object.keys(obj)) {
    if (!allowed.includes(key))
      corrupt(where === "" ? key : pathKey(where, key), "is not a key this lock format has");
  }
}

/** Shared lock check. */
export function digestAt(value: JsonValue | undefined, where: string): Digest {
  if (typeof value !== "string" || !DIGEST.test(value)) {
    corrupt(where, 'must be "sha256:" followed by 64 lowercase hex digits');
  }
  return value as Digest;
}

/** Shared lock check. */
export function corrupt(where: string, problem: string): never {
  fail("LOCK_CORRUPT", `lock is corrupt: ${where} ${problem}`);
}

/** Shared lock check. */
export function fail(code: LockErrorCode, message: string): never {
  throw new ContractpinError(code, message);
}

/** Shared lock check. */
export function isDigest(value: JsonValue | undefined): boolean {
  return typeof value === "string" && value.length === 71 && DIGEST.test(value);
}

// A lock holds every tool's (and item's) digests: the JSON path of each value is built only
// when a value is wrong, so that a valid lock is checked without making them.
export function validateDigests(
  value: JsonValue,
  where: () => string,
  allowed: readonly string[],
  sidePins: readonly string[] = [],
): { digest: Digest; fields: Record<string, Digest> } & SidePinDigests {
  if (!isJsonObject(value)) object(value, where());
  const tool = value as JsonObject;
  const out: SidePinDigests = {};
  for (const key of Object.keys(tool)) {
    if (key === "digest" || key === "fields") continue;
    if (!sidePins.includes(key)) onlyKeys(tool, where(), ["digest", "fields", ...sidePins]);
    // A side pin (SPEC.md 13): one digest, like any other.
    const pin = tool[key];
    if (!isDigest(pin)) digestAt(pin, pathKey(where(), key));
    out[key as SidePinMember] = pin as Digest;
  }
  const digest = tool["digest"];
  if (!isDigest(digest)) digestAt(digest, `${where()}.digest`);
  const fieldsValue = getMember(tool, "fields");
  const fields: Record<string, Digest> = {};
  if (fieldsValue !== undefined) {
    const record = object(fieldsValue, isJsonObject(fieldsValue) ? "" : `${where()}.fields`);
    for (const field of Object.keys(record)) {
      const fieldDigest = record[field];
      if (!allowed.includes(field)) {
        corrupt(pathKey(`${where()}.fields`, field), "is not a contract field");
      }
      if (!isDigest(fieldDigest)) digestAt(fieldDigest, pathKey(`${where()}.fields`, field));
      fields[field] = fieldDigest as Digest;
    }
  }
  return { ...out, digest: digest as Digest, fields };
}

/**
 * The items of one kind in the lock (a server's `tools`, a list's `items`),
 * the same check for every kind: each one's digests, its field digests only
 * of the kind's contract fields, its side pins only those `sidePins` names
 * (the kind table's, where the lock format has them; SPEC.md 13), and a
 * count that is the number of items.
 *
 * @returns each item's digests, and `{key: digest}`, of which the list's (or
 *   the server's) digest is the digest.
 */
export function validateItems(
  itemsValue: JsonValue | undefined,
  where: string,
  fields: readonly string[],
  count: { value: JsonValue | undefined; where: string; problem: (n: number) => string },
  sidePins: readonly string[] = [],
): {
  items: Record<string, { digest: Digest; fields: Record<string, Digest> } & SidePinDigests>;
  keys: Record<string, Digest>;
  count: number;
} {
  const listed = object(itemsValue, where);
  const items: Record<string, { digest: Digest; fields: Record<string, Digest> } & SidePinDigests> =
    {};
  const keys: Record<string, Digest> = {};
  for (const key of Object.keys(listed)) {
    const item = validateDigests(listed[key]!, () => pathKey(where, key), fields, sidePins);
    setMember(items, key, item);
    setMember(keys, key, item.digest);
  }
  const actual = Object.keys(listed).length;
  if (typeof count.value !== "number" || !Number.isInteger(count.value))
    corrupt(count.where, "must be an integer");
  if (count.value !== actual)
    corrupt(count.where, `is ${count.value} but ${count.problem(actual)}`);
  return { items, keys, count: actual };
}
