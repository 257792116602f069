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

// Name parts that mark a credential: API_KEY, GITHUB_TOKEN, DB_PASSWORD, client-secret,
// DB_PW, --db-pw, PGPASS (libpq's password variable), ...
const CREDENTIAL_WORDS =
  /(^|[^a-z])(pass(word|wd|phrase|code)?|pwd|pw|pgpass|jwt|secrets?|tokens?|api[-_]?keys?|apikey|access[-_]?keys?|private[-_]?keys?|keys?|credentials?|creds?|cookies?|auth|authorization|bearer|pat|sessions?|signature|sig)$/i;
const CREDENTIAL_ANYWHERE = /(secret|passw|token|apikey|api_key|api-key|credential)/i;

/** True when a variable, header, flag or query-parameter name suggests its value is a credential. */
export function isCredentialName(name: string): boolean {
  const plain = name.replace(/^-+/, "").replace(/([a-z0-9])([A-Z])/g, "$1_$2");
  return CREDENTIAL_WORDS.test(plain) || CREDENTIAL_ANYWHERE.test(plain);
}

const KNOWN_TOKEN_SHAPES = [
  /^(sk|pk|rk)[-_][A-Za-z0-9_-]{12,}/, // OpenAI, Anthropic, Stripe
  /^(whsec|rk_live|rk_test)_[A-Za-z0-9]{16,}/, // Stripe webhook and restricted keys
  /^gh[pousr]_[A-Za-z0-9]{20,}/, // GitHub
  /^github_pat_[A-Za-z0-9_]{20,}/,
  /^gl(pat|rt|dt|ptt|soat|cbt|imt|ft|oas|agent)-[A-Za-z0-9_-]{16,}/, // GitLab
  /^xox[abposre]-[A-Za-z0-9-]{10,}/, // Slack
  /^xapp-[0-9]-[A-Za-z0-9-]{10,}/, // Slack app-level token
  /^(AKIA|ASIA)[0-9A-Z]{16}$/, // AWS access key id
  /^AIza[0-9A-Za-z_-]{30,}/, // Google API key
  /^ya29\.[A-Za-z0-9_-]{20,}/, // Google OAuth access token
  /^(hf|npm|gsk|r8|dckr_pat|lin_api|ntn|figd|nfp|sbp|shp(at|ss|ca|pa))_[A-Za-z0-9_-]{20,}/, // Hugging Face, npm, Groq, Replicate, Docker, Linear, Notion, Figma, Netlify, Supabase, Shopify
  /^do[por]_v1_[a-f0-9]{40,}/, // DigitalOcean
  /^(pplx|xai|tvly|fc|key)-[A-Za-z0-9]{24,}/, // Perplexity, xAI, Tavily, Firecrawl, Mailgun
  /^pypi-[A-Za-z0-9_-]{40,}/, // PyPI
  /^sntry[su]_[A-Za-z0-9+/=_-]{20,}/, // Sentry
  /^hv[sb]\.[A-Za-z0-9_-]{20,}/, // HashiCorp Vault
  /^SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}/, // SendGrid
  /^sq0(atp|csp)-[A-Za-z0-9_-]{20,}/, // Square
  /^dapi[a-f0-9]{32}/, // Databricks
  /^ATATT[A-Za-z0-9_=-]{20,}/, // Atlassian
  /^AGE-SECRET-KEY-1[0-9A-Z]{20,}/, // age
  // Any other vendor: a short lower-case prefix, then a long random body with
  // letters and digits (DigitalOcean-like lower-case hex bodies included).
  /^[a-z]{2,8}(?:[-_][a-z0-9]{1,8}){0,2}[-_](?=[A-Za-z0-9]*[0-9])(?=[A-Za-z0-9]*[A-Za-z])[A-Za-z0-9]{24,}$/,
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

/** A reference name built from parts: upper case, every other character `_`. */
export function variableName(...parts: string[]): string {
  const name = parts
    .join("_")
    .toUpperCase()
    .replace(/[^A-Z0-9]/g, "_");
  return /^[0-9]/.test(name) ? `_${name}` : name;
}

/** A literal header value split into what a lock may hold and what it may not. */
export interface HeaderReference {
  /** The template to write: `Bearer ${SEARCH_AUTHORIZATION}`, or `${SEARCH_X_API_KEY}`. */
  template: string;
  /** The variable the template refers to. */
  variable: string;
  /** The literal the variable must hold: the value without its auth scheme. */
  secret: string;
}

/**
 * The reference that stands for a literal header value, one rule for `add`'s
 * fix and `init`'s import: `${SERVER_HEADER}` (or `${HEADER}` when the header's
 * name already starts with the server's, so CONTEXT7_API_KEY, not
 * CONTEXT7_CONTEXT7_API_KEY), after the value's auth scheme if it has one:
 * `Authorization: Bearer xyz` on server search is `Bearer ${SEARCH_AUTHORIZATION}`.
 */
export function headerReference(server: string, name: string, value: string): HeaderReference {
  const variable = variableName(name).startsWith(`${variableName(server)}_`)
    ? variableName(name)
    : variableName(server, name);
  const scheme = /^(Bearer|Basic|Token)\s+(\S.*)$/is.exec(value);
  return scheme
    ? { template: `${scheme[1]!} \${${variable}}`, variable, secret: scheme[2]! }
    : { template: `\${${variable}}`, variable, secret: value };
}
