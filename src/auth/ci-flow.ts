/** A non-interactive flow of the lock's `auth` member, its secrets expanded. */
export interface CiFlow {
  mode: "client_credentials" | "refresh_token";
  issuer: string;
  clientId: string;
  clientSecret?: string;
  refreshToken?: string;
  /** A PEM private key (private_key_jwt, instead of a client secret). */
  privateKey?: string;
  /** The variable that holds the refresh token: its name in `--oauth-state-out`. */
  refreshVariable?: string;
}

/** The server a non-interactive flow gets tokens for, and where a rotated refresh token goes. */
export interface CiTarget {
  url: URL;
  /** The server's canonical resource URL: the only one the token is for. */
  resource: string;
  /** `--oauth-state-out FILE`, for a rotated refresh token. */
  stateOut?: string;
}
