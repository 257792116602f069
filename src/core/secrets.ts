/**
 * What counts as a credential, so that none is ever written to the lock.
 * Heuristics, deliberately eager: a false alarm costs the user one `${VAR}`;
 * a miss puts a secret into git.
 */

/** `${VAR}`: a reference to an environment variable, expanded at run time. */
export const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** True when `value` contains at least one `${VAR}` reference. */
export function hasReference(value: string): boolean {
  return new RegExp(REFERENCE.source).test(value);
}

// Name parts that mark a credential: API_KEY, GITHUB_TOKEN, DB_PASSWORD, client-secret, ...
const CREDENTIAL_WORDS =
  /(^|[^a-z])(pass(word|wd|phrase)?|pwd|secrets?|tokens?|api[-_]?keys?|apikey|access[-_]?keys?|private[-_]?keys?|keys?|credentials?|creds?|cookies?|auth|authorization|bearer|pat|sessions?|signature|sig)$/i;
const CREDENTIAL_ANYWHERE = /(secret|passw|token|apikey|api_key|api-key|credential)/i;

/** True when a variable, header, flag or query-parameter name suggests its value is a credential. */
export function isCredentialName(name: string): boolean {
  const plain = name.replace(/^-+/, "").replace(/([a-z0-9])([A-Z])/g, "$1_$2");
  return CREDENTIAL_WORDS.test(plain) || CREDENTIAL_ANYWHERE.test(plain);
}

const KNOWN_TOKEN_SHAPES = [
  /^(sk|pk|rk)[-_][A-Za-z0-9_-]{12,}/, // OpenAI, Anthropic, Stripe
  /^gh[pousr]_[A-Za-z0-9]{20,}/, // GitHub
  /^github_pat_[A-Za-z0-9_]{20,}/,
  /^glpat-[A-Za-z0-9_-]{16,}/, // GitLab
  /^xox[abposr]-[A-Za-z0-9-]{10,}/, // Slack
  /^(AKIA|ASIA)[0-9A-Z]{16}$/, // AWS access key id
  /^AIza[0-9A-Za-z_-]{30,}/, // Google API key
  /^eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\./, // JWT
  /^(bearer|basic|token)\s+\S{8,}/i, // an Authorization value
  /-----BEGIN [A-Z ]*PRIVATE KEY-----/,
];

/**
 * True when a literal value looks like a credential: a known token shape, a
 * URL with a password in it, a long hex key, or a long run of mixed-case
 * letters and digits with no spaces that is not a path or URL. Lower-case
 * names with versions (`mcp-server-sqlite==2025.4.25`) are not.
 */
export function looksLikeSecretValue(value: string): boolean {
  if (KNOWN_TOKEN_SHAPES.some((re) => re.test(value))) return true;
  if (URL_WITH_PASSWORD.test(value)) return true;
  if (
    value.length < 20 ||
    /\s/.test(value) ||
    /^(\.{0,2}\/|[A-Za-z]:\\|[a-z][a-z0-9+.-]*:\/\/)/i.test(value)
  ) {
    return false;
  }
  if (!/^[A-Za-z0-9+/=_.~-]+$/.test(value)) return false;
  if (/^[0-9a-f]{32,}$/i.test(value)) return true;
  return (
    /[A-Z]/.test(value) && /[a-z]/.test(value) && /[0-9]/.test(value) && new Set(value).size >= 12
  );
}

// scheme://user:password@host: a connection string that carries its password.
const URL_WITH_PASSWORD = /[a-z][a-z0-9+.-]*:\/\/[^\s/:@]+:[^\s/@]+@/i;

/** The literal text of a template: `value` with every `${VAR}` reference removed. */
export function literalPart(value: string): string {
  return value.replace(REFERENCE, " ");
}
