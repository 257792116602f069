import type { StoredOAuthClientInformation, StoredOAuthTokens } from "@modelcontextprotocol/client";
import { ContractpinError } from "../core/errors.js";
import { fileStore } from "./store-file.js";
import { keychainStore, keychainTool } from "./store-keychain.js";

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
}

/** One entry by resource and issuer, or undefined. */
export async function readEntry(
  store: CredentialStore,
  resource: string,
  issuer: string,
): Promise<CredentialEntry | undefined> {
  const entries = await store.read(resource);
  return Object.hasOwn(entries, issuer) ? entries[issuer] : undefined;
}

/** Replaces (or with `undefined`, deletes) one entry, leaving the resource's others as they were. */
export async function writeEntry(
  store: CredentialStore,
  resource: string,
  issuer: string,
  entry: CredentialEntry | undefined,
): Promise<void> {
  const entries = Object.fromEntries(
    Object.entries(await store.read(resource)).filter(([i]) => i !== issuer),
  );
  if (entry !== undefined) entries[issuer] = entry;
  await store.write(resource, entries);
}

/**
 * The credential store the environment selects. CONTRACTPIN_CREDENTIAL_STORE
 * chooses: `file` (a JSON file in the config directory), `keychain` (the OS
 * keychain: macOS `security` or Secret Service through `secret-tool`; an error
 * when neither is installed), or `auto` (the default: the keychain where one is
 * installed, otherwise the file). CONTRACTPIN_CONFIG_DIR (set by tests) means
 * `file` unless the store is chosen explicitly, so a test never touches a
 * real keychain.
 *
 * @throws ContractpinError USAGE for another value, CREDENTIAL_STORE for
 *   `keychain` without a keychain tool.
 */
export function openStore(env: Readonly<Record<string, string | undefined>>): CredentialStore {
  const chosen =
    env.CONTRACTPIN_CREDENTIAL_STORE ??
    (env.CONTRACTPIN_CONFIG_DIR !== undefined ? "file" : "auto");
  if (chosen === "file") return fileStore(env);
  if (chosen !== "auto" && chosen !== "keychain") {
    throw new ContractpinError(
      "USAGE",
      "CONTRACTPIN_CREDENTIAL_STORE must be file, keychain or auto",
    );
  }
  const tool = keychainTool(env);
  if (tool !== undefined) return keychainStore(tool);
  if (chosen === "keychain") {
    throw new ContractpinError(
      "CREDENTIAL_STORE",
      "CONTRACTPIN_CREDENTIAL_STORE=keychain, but neither secret-tool (Secret Service) nor " +
        "security (macOS) is installed",
    );
  }
  return fileStore(env);
}
