import { ContractpinError } from "../core/errors.js";
import { isJsonObject, type JsonValue } from "../core/json-value.js";
import type { CredentialEntry, ResourceEntries } from "./store.js";

/**
 * The entries of one resource as read from a store, checked for shape: an
 * object of issuer to `{resource, issuer, client?, tokens?, savedAt?}`.
 *
 * @param where the store, for the error.
 * @throws ContractpinError CREDENTIAL_STORE for anything else.
 */
export function validEntries(value: JsonValue | undefined, where: string): ResourceEntries {
  const bad = () =>
    new ContractpinError("CREDENTIAL_STORE", `${where} holds an entry contractpin cannot read`);
  if (!isJsonObject(value)) throw bad();
  const entries: ResourceEntries = {};
  for (const [issuer, entry] of Object.entries(value)) {
    if (
      !isJsonObject(entry) ||
      entry.issuer !== issuer ||
      typeof entry.resource !== "string" ||
      (entry.client !== undefined && !isJsonObject(entry.client)) ||
      (entry.tokens !== undefined && !isJsonObject(entry.tokens)) ||
      (entry.savedAt !== undefined && typeof entry.savedAt !== "number")
    )
      throw bad();
    Object.defineProperty(entries, issuer, {
      value: entry as unknown as CredentialEntry,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return entries;
}
