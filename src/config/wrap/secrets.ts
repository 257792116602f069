import {
  containsSecret,
  credentialInUrlText,
  holdsToken,
  isLiteralEnvCredential,
} from "../../core/source/credential-scan.js";
import { redactor } from "../../core/source/redact.js";
import { hasReference, isCredentialName, literalPart } from "../../core/source/secrets.js";
import type { RawServer } from "../raw-server.js";
import { ORIGINAL_VARIABLE } from "./guard-fields.js";

/** What a masked value is shown as. */
export const MASK = "***";

/**
 * The literal values of an entry that may be secrets, to be masked wherever
 * the config's text is shown: env values that are credentials (by name or
 * shape), every literal header value (the lock never holds one) and any
 * header whose literal text around its `${VAR}` holds a credential, and
 * arguments or URLs that hold a credential.
 */
export function entrySecrets(raw: RawServer, moved: Record<string, string> = {}): string[] {
  const found = new Set(Object.values(moved));
  for (const [name, value] of Object.entries(raw.env)) {
    if (name !== ORIGINAL_VARIABLE && isLiteralEnvCredential(name, value)) found.add(value);
  }
  // A header that refers to a variable (`Bearer ${TOKEN}`) is shown as written,
  // as the lock holds it, unless its literal text holds a credential too.
  for (const value of Object.values(raw.headers)) {
    if (!hasReference(value) || containsSecret(literalPart(value))) found.add(value);
  }
  for (const value of [...raw.args, raw.url ?? ""]) {
    if (containsSecret(value) || credentialInUrlText(value) !== undefined) found.add(value);
  }
  return [...found].filter((v) => v !== "");
}

// A string member on one line: `"key": "value"` (JSON) or `key = "value"` (TOML).
const MEMBER = /("(?:[^"\\]|\\.)*"|[A-Za-z0-9_-]+)(\s*[:=]\s*)"((?:[^"\\]|\\.)*)"/g;
const STRING = /"((?:[^"\\]|\\.)*)"/g;

function decoded(body: string): string {
  try {
    return JSON.parse(`"${body}"`) as string;
  } catch {
    return body;
  }
}

/**
 * A function that masks the secrets in one line of a config's text: each of
 * `secrets` in any spelling, the value of a member whose name is a credential
 * name (`"apiKey": "…"`), any string shaped like a token, and the stored
 * original of a wrapped entry (which may hold all of them, escaped).
 */
export function lineMasker(secrets: readonly string[]): (line: string) => string {
  const redact = redactor(secrets.map((s) => [s, MASK] as const));
  return (line) =>
    redact(line)
      .replace(MEMBER, (whole, key: string, sep: string, body: string) => {
        const name = key.startsWith('"') ? decoded(key.slice(1, -1)) : key;
        if (name === ORIGINAL_VARIABLE) return `${key}${sep}"…(the original entry, for unwrap)…"`;
        // A value that refers to a variable (`Bearer ${TOKEN}`, `${input:key}`, `$TOKEN`) is no secret.
        const value = decoded(body);
        return isCredentialName(name) &&
          value !== "" &&
          !/\$\{[^}]+\}|^\$[A-Z_][A-Z0-9_]*$/.test(value)
          ? `${key}${sep}"${MASK}"`
          : whole;
      })
      .replace(STRING, (whole, body: string) => (holdsToken(decoded(body)) ? `"${MASK}"` : whole));
}
