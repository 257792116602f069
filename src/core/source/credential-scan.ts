import {
  hasReference,
  isCredentialName,
  literalPart,
  looksLikeSecretValue,
  REFERENCE,
} from "./secrets.js";

/**
 * Where a server definition hides a literal credential: inside a longer
 * value, in an argument list, in a URL. Shared by `add` (src/core/source/source-policy.ts)
 * and the client-config import (src/config), so both refuse the same things.
 * No function here returns or quotes the value it found.
 */

const AUTH_SCHEME = /\b(bearer|basic|token)\s+[^\s${}]{6,}/i;
// NAME=value pairs: an argument (`-e DB_PASSWORD=...`), a connection string
// (`Host=x;Password=...`), query-like text (`a=1&access_token=...`).
const ASSIGNMENT = /(?:^|[;&?,\s])([A-Za-z_][\w.-]*)\s*=\s*([^;&\s]*)/g;

const CONTENT_DIGEST = /(@?sha(?:256|384|512):)[0-9a-f]{64,128}\b/g;

/** True when `text` assigns a literal to a credential-like name: `DB_PASSWORD=...`, `Password=...;`. */
function assignsSecret(text: string): boolean {
  for (const [, name, value] of text.matchAll(ASSIGNMENT)) {
    if (isCredentialName(name!) && isLiteral(value!)) return true;
  }
  return false;
}

/**
 * True when a literal looks like a credential, or holds one: between
 * separators (`user:ghp_…`, `KEY=ghp_…`), after an auth scheme (`Bearer abc…`),
 * or as the value of a credential-like name (`DB_PASSWORD=…`, `Password=…;`).
 */
export function containsSecret(value: string): boolean {
  // A content digest (`image@sha256:…`, how a docker image is pinned) is public, not a key.
  const text = value.replace(CONTENT_DIGEST, "$1");
  if (looksLikeSecretValue(text) || AUTH_SCHEME.test(text) || assignsSecret(text)) return true;
  // Base64 may end in `=`, so split with and without it.
  return [/[^A-Za-z0-9+/=_.~-]+/, /[^A-Za-z0-9+/_.~-]+/].some((sep) =>
    text.split(sep).some((part) => looksLikeSecretValue(part)),
  );
}

const PRIVATE_KEY = /-----BEGIN [A-Z ]*PRIVATE KEY-----/;

/**
 * True when prose (a tool's description, a schema's strings) holds something
 * shaped like a credential: a run between separators that looks like a token
 * or key, a word that is a URL with a password in it, or a private key.
 * Narrower than {@link containsSecret}, which judges a definition's values:
 * here "Basic authentication", "Token required" or "set token=..." are
 * wording, not credentials.
 */
export function holdsToken(value: string): boolean {
  const text = value.replace(CONTENT_DIGEST, "$1");
  if (PRIVATE_KEY.test(text)) return true;
  // `scheme://user:password@host` is one word; split at `:` and `@`, it would be lost.
  if (
    text.includes("@") &&
    text.split(/\s+/).some((w) => w.includes("@") && looksLikeSecretValue(w))
  ) {
    return true;
  }
  // Base64 may end in `=`, so split with and without it (the same runs when there is none).
  const seps = text.includes("=")
    ? [/[^A-Za-z0-9+/=_.~-]+/, /[^A-Za-z0-9+/_.~-]+/]
    : [/[^A-Za-z0-9+/=_.~-]+/];
  return seps.some((sep) => text.split(sep).some((part) => looksLikeSecretValue(part)));
}

/** True when a template mixes a reference with literal text that holds a credential. */
export function mixedSecret(value: string): boolean {
  return hasReference(value) && containsSecret(literalPart(value));
}

/**
 * True when a literal env value (no reference) is a credential: by the
 * variable's name, by the value's shape, or as a URL that carries one.
 */
export function isLiteralEnvCredential(name: string, value: string): boolean {
  return (
    isCredentialName(name) || containsSecret(value) || credentialInUrlText(value) !== undefined
  );
}

/** True when `value` is non-empty and holds no `${VAR}` reference. */
export function isLiteral(value: string): boolean {
  return value !== "" && !hasReference(value);
}

const URL_LIKE = /^[a-z][a-z0-9+.-]*:\/\//i;

function decode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/**
 * Why a URL holds a literal credential, if it does: a password (or, when
 * `withUser`, a user name), a credential-like query parameter, a path segment
 * shaped like a token (`https://actions.example.com/mcp/sk-…/sse`), or a
 * fragment that carries one (`#access_token=…`).
 */
export function urlCredential(url: URL, withUser: boolean): string | undefined {
  if (isLiteral(decode(url.password)) || (withUser && isLiteral(decode(url.username)))) {
    return "a user name or password";
  }
  for (const [name, value] of url.searchParams) {
    // `code` is an OAuth authorization code, exchanged for a token.
    if (
      isLiteral(value) &&
      (isCredentialName(name) || name.toLowerCase() === "code" || containsSecret(value))
    ) {
      return `the query parameter ${name}`;
    }
  }
  const segments = url.pathname.split("/").map(decode);
  if (segments.some((s) => isLiteral(s) && containsSecret(s))) return "a path segment";
  const fragment = decode(url.hash.slice(1));
  if (
    isLiteral(fragment) &&
    (containsSecret(fragment) || /(token|key|secret|password)=/i.test(fragment))
  ) {
    return "its fragment";
  }
  return undefined;
}

/**
 * Parses a URL template: a reference in the host or port (`https://${HOST}:${PORT}/`)
 * is not a valid URL as it stands, so those two take stand-ins; references
 * anywhere else are kept, so that they still count as references.
 */
export function parseUrlTemplate(value: string): URL | undefined {
  const ref = REFERENCE.source;
  const parsable = value
    .replace(new RegExp(`^([a-z][a-z0-9+.-]*://(?:[^/@]*@)?)${ref}`, "i"), "$1host.invalid")
    .replace(new RegExp(`:${ref}(?=[/?#]|$)`), ":1");
  try {
    return new URL(parsable);
  } catch {
    return undefined;
  }
}

/** Why a literal that is a URL holds a credential, if it does. A user name alone (ssh://git@host) is no secret. */
export function credentialInUrlText(value: string): string | undefined {
  if (!URL_LIKE.test(value)) return undefined;
  const url = parseUrlTemplate(value);
  return url === undefined ? undefined : urlCredential(url, false);
}

/**
 * Why an argument list holds a literal credential, if it does: a value that
 * looks like one or holds one, the value of a credential-named flag
 * (`--api-key X`, `--token=X`), a header given as an argument
 * (`--header "Authorization: Bearer …"`, `X-API-Key: …`), or a URL carrying one.
 */
export function argsCredential(args: readonly string[]): string | undefined {
  for (const [i, arg] of args.entries()) {
    const flag = /^(--?[A-Za-z][\w-]*)=(.*)$/s.exec(arg);
    const previous = args[i - 1] ?? "";
    const value = flag ? flag[2]! : arg;
    const where = `args[${i}]`;
    // The most specific reason first: a URL's password before "looks like a credential".
    const inUrl = credentialInUrlText(value);
    if (inUrl !== undefined) return `${where} is a URL that holds ${inUrl}`;
    const header = /^([A-Za-z][\w-]*)\s*:\s*(.+)$/s.exec(value);
    if (header && isCredentialName(header[1]!) && isLiteral(header[2]!)) {
      return `${where} (header ${header[1]!}) looks like a credential`;
    }
    // `-e DB_PASSWORD=…` (docker), `--env=SLACK_BOT_TOKEN=…`: a variable handed to the server.
    const assigned = /^([A-Za-z_][\w.-]*)=(.*)$/s.exec(value);
    if (assigned && isCredentialName(assigned[1]!) && isLiteral(assigned[2]!)) {
      return `${where} (${assigned[1]!}=…) looks like a credential`;
    }
    if (mixedSecret(value) || (isLiteral(value) && containsSecret(value))) {
      return `${where} looks like a credential`;
    }
    if (flag && isCredentialName(flag[1]!) && isLiteral(value)) {
      return `${where} (${flag[1]!}=…) looks like a credential`;
    }
    if (!flag && /^--?[A-Za-z]/.test(previous) && isCredentialName(previous) && isLiteral(value)) {
      return `${where} (the value of ${previous}) looks like a credential`;
    }
  }
  return undefined;
}

/**
 * Why an HTTP server's URL cannot be written to the lock, if it cannot: it is
 * not an http(s) URL (references checked as if expanded), or it holds a
 * literal credential.
 */
export function urlProblem(url: string): string | undefined {
  const parsed = parseUrlTemplate(url);
  if (parsed === undefined) return "its url is not a valid URL";
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    return `its url must be http: or https:, not ${parsed.protocol}`;
  }
  const found = urlCredential(parsed, true);
  return found === undefined ? undefined : `its url holds ${found}, which looks like a credential`;
}
