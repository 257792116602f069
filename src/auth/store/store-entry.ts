import { ContractpinError } from "../../core/errors.js";
import { isJsonObject, type JsonValue } from "../../core/json/json-value.js";
import type { StoredOAuthClientInformation, StoredOAuthTokens } from "@modelcontextprotocol/client";

/**
 * What contractpin keeps for one MCP server (its canonical resource URL) and
 * one authorization server (its issuer): never in the lock or its snapshot.
 */
export interface CredentialEntry {
  /** The canonical resource URL (RFC 8707) the credential was obtained for. */
  resource: string;
  /** The authorization server's issuer identifier. */
  issuer: string;
  /** The client as registered with that authorization server. */
  client?: StoredOAuthClientInformation;
  /** The last tokens the authorization server gave (refreshed tokens replace them). */
  tokens?: StoredOAuthTokens;
  /** When `tokens` were saved (ms since the epoch): the access token's expiry counts from it. */
  savedAt?: number;
}

/** The entries of one resource, by issuer. */
export type ResourceEntries = Record<string, CredentialEntry>;

/**
 * Where credentials live. Every method is keyed by the canonical resource
 * URL; `write` with an empty record removes what is stored for it. A write
 * that fails throws (ContractpinError CREDENTIAL_STORE): a credential is never
 * used that could not be saved.
 */
export interface CredentialStore {
  /** What it is, for messages: "the credentials file PATH", "the Secret Service keychain". */
  readonly where: string;
  read(resource: string): Promise<ResourceEntries>;
  write(resource: string, entries: ResourceEntries): Promise<void>;
  /**
   * Throws (CREDENTIAL_STORE) when a credential could not be saved here now:
   * login asks before it sends the person to the browser, so that tokens it
   * obtains are never lost to a store that cannot keep them.
   */
  ready(): Promise<void>;
}

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
