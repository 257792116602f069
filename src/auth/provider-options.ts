import type { CredentialStore } from "./store/store.js";

/** A pre-registered client (`--client-id`, or the lock's `auth.clientId`). */
export interface ClientIdentity {
  clientId: string;
  /** Its secret, already expanded from the variable that holds it. */
  clientSecret?: string;
}

/** How a StoreBackedProvider (provider.ts) is set up. */
export interface StoreBackedOptions {
  store: CredentialStore;
  /** The canonical resource URL of the MCP server: the only one the credential is for. */
  resource: string;
  /**
   * The authorization server the credential must come from (its issuer).
   * Default: the one already stored for the resource, if any; with none, the
   * first one discovery names (a login).
   */
  expectedIssuer?: string;
  /** The loopback callback of a login; undefined for a read, which never sends a person anywhere. */
  redirectUrl?: string;
  /** The `state` a login sends and checks on its callback. */
  state?: string;
  client?: ClientIdentity;
  /** Where a login sends the person; a read without it fails with `loginHint`. */
  onAuthorizationUrl?: (url: URL) => void | Promise<void>;
  /** The one line that says how to log in, for a read that finds no usable credential. */
  loginHint: string;
  /** The scope to ask for (default: what the server advertises). */
  scope?: string;
  /** The https URL of a client ID metadata document for contractpin (used where the authorization server supports them). */
  clientMetadataUrl?: string;
}
