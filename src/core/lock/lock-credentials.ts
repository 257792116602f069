import {
  argsCredential,
  holdsToken,
  isLiteralEnvCredential,
  mixedSecret,
  parseUrlTemplate,
  urlCredential,
} from "../source/credential-scan.js";
import { isJsonObject, type JsonValue } from "../json/json-value.js";
import { hasReference } from "../source/secrets.js";
import { AUTH_SECRETS, referencedName } from "../source/server-auth.js";
import type { ServerSource } from "../source/server-source.js";

/**
 * Where a lock or its contract snapshots hold a credential, for `contractpin
 * check`. The lock's server definitions are judged by the rules `add` and
 * `init` apply before they write (src/core/source/source-policy.ts), so a lock that
 * contractpin wrote passes and a value planted by hand does not. Nothing here
 * returns or quotes a value: only where it is.
 */

// An Authorization value with its scheme: `Bearer abc`, as source-policy refuses it.
const AUTH_VALUE = /^(bearer|basic|token)\s+\S/i;

/**
 * Each place in a server definition that holds a literal credential, as a
 * phrase ("env API_KEY", "header Authorization", "the URL's password"). A
 * literal header value counts even when it does not look like one: contractpin
 * writes headers only as `${VAR}` templates, so a literal one was put there by
 * hand, and the heuristics cannot vouch for it.
 */
export function sourceCredentials(source: ServerSource): string[] {
  const found: string[] = [];
  switch (source.transport) {
    case "stdio": {
      for (const [name, value] of Object.entries(source.env ?? {})) {
        const risky = hasReference(value)
          ? mixedSecret(value)
          : isLiteralEnvCredential(name, value);
        if (risky) found.push(`env ${name} holds a literal credential`);
      }
      const inArgs = argsCredential(source.command);
      if (inArgs !== undefined) found.push(`the command's ${inArgs}`);
      break;
    }
    case "http": {
      const url = parseUrlTemplate(source.url);
      const inUrl = url === undefined ? undefined : urlCredential(url, true);
      if (inUrl !== undefined) found.push(`the URL holds ${inUrl}, which looks like a credential`);
      for (const [name, value] of Object.entries(source.headers ?? {})) {
        if (mixedSecret(value)) {
          found.push(`header ${name} mixes a reference with a literal credential`);
        } else if (hasReference(value)) {
          continue;
        } else if (isLiteralEnvCredential(name, value) || AUTH_VALUE.test(value)) {
          found.push(`header ${name} holds a literal credential`);
        } else {
          found.push(
            `header ${name} is a literal value (contractpin writes headers only as \${VAR} templates)`,
          );
        }
      }
      for (const key of AUTH_SECRETS) {
        const value = source.auth?.[key];
        if (value !== undefined && referencedName(value) === undefined) {
          found.push(`auth ${key} holds a literal credential`);
        }
      }
      break;
    }
    case "file":
      break;
  }
  return found;
}

/**
 * The JSON Pointer (RFC 6901) of every string in `value` that holds
 * something shaped like a credential ({@link holdsToken}). Object keys are
 * names, not values, and are not judged. Iterative, in document order.
 */
export function tokenPointers(value: JsonValue): string[] {
  const found: string[] = [];
  const stack: [JsonValue, string][] = [[value, ""]];
  while (stack.length > 0) {
    const [v, pointer] = stack.pop()!;
    if (typeof v === "string") {
      if (holdsToken(v)) found.push(pointer);
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i]!, `${pointer}/${i}`]);
    } else if (isJsonObject(v)) {
      const keys = Object.keys(v);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i]!;
        stack.push([v[key]!, `${pointer}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`]);
      }
    }
  }
  return found;
}
