import {
  containsSecret,
  isLiteralEnvCredential,
  mixedSecret,
  urlProblem as coreUrlProblem,
} from "../core/source/credential-scan.js";
import {
  hasReference,
  headerReference,
  isCredentialName,
  variableName,
} from "../core/source/secrets.js";
import { setMember } from "../core/json/json-value.js";

/**
 * The lock never holds a secret (spec 5). A literal credential in a config's
 * env or headers is replaced with a `${VAR}` reference, its value kept aside
 * to read the server once; one in args or in a URL cannot be, since nothing
 * names it, and the server is skipped. No message here quotes a value.
 */

/** Values moved out of a definition, and what to tell the user about them. */
export interface Moved<T> {
  value: T;
  /** VAR → the literal it replaces: for reading the server now, never written. */
  secretValues: Record<string, string>;
  warnings: string[];
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Replaces each literal env value that looks like a credential (by the
 * variable's name or by the value's shape) with a reference to a variable of
 * the same name: `GITHUB_TOKEN: ghp_…` becomes `GITHUB_TOKEN: ${GITHUB_TOKEN}`.
 *
 * @returns the safe env, or the reason the server must be skipped.
 */
export function moveEnvSecrets(
  label: string,
  server: string,
  env: Record<string, string>,
): Moved<Record<string, string>> | { reason: string } {
  const moved: Moved<Record<string, string>> = { value: {}, secretValues: {}, warnings: [] };
  for (const [name, value] of Object.entries(env)) {
    if (mixedSecret(value)) {
      return { reason: `env ${name} mixes a reference with what looks like a literal credential` };
    }
    if (hasReference(value) || !isLiteralEnvCredential(name, value)) {
      setMember(moved.value, name, value);
      continue;
    }
    const variable = IDENTIFIER.test(name) ? name : variableName(server, name);
    setMember(moved.value, name, `\${${variable}}`);
    setMember(moved.secretValues, variable, value);
    moved.warnings.push(
      `${label}: env ${name} holds a literal credential, which is never written to the lock; ` +
        `the lock refers to \${${variable}} instead: set ${variable} when verifying`,
    );
  }
  return moved;
}

/**
 * Replaces every literal header value with a reference, since the lock holds
 * header templates only (src/core/source/source-policy.ts): `Authorization: Bearer
 * xyz` becomes `Bearer ${SERVER_AUTHORIZATION}`, keeping the scheme; any
 * other literal becomes `${SERVER_HEADER}`. Templates are kept as they are.
 *
 * @returns the safe headers, or the reason the server must be skipped.
 */
export function moveHeaderSecrets(
  label: string,
  server: string,
  headers: Record<string, string>,
): Moved<Record<string, string>> | { reason: string } {
  const moved: Moved<Record<string, string>> = { value: {}, secretValues: {}, warnings: [] };
  for (const [name, value] of Object.entries(headers)) {
    if (mixedSecret(value)) {
      return {
        reason: `header ${name} mixes a reference with what looks like a literal credential`,
      };
    }
    if (hasReference(value)) {
      setMember(moved.value, name, value);
      continue;
    }
    // The same reference `add` proposes for a literal credential header (src/core/source/source-policy.ts).
    const { template, variable, secret } = headerReference(server, name, value);
    setMember(moved.value, name, template);
    setMember(moved.secretValues, variable, secret);
    const what =
      isCredentialName(name) || containsSecret(value) || template !== `\${${variable}}`
        ? "holds a literal credential"
        : "is a literal value";
    const part =
      template === `\${${variable}}` ? "the config's value" : "the config's value after the scheme";
    // Worded like add's refusal of a literal header, with the same reference.
    moved.warnings.push(
      `${label}: header ${name} ${what}, and literal header values are never written to the lock; ` +
        `the lock sends '${name}: ${template}' instead (as --header '${name}: ${template}' would): ` +
        `set ${variable} to ${part} when verifying`,
    );
  }
  return moved;
}

/**
 * Why an HTTP server's URL cannot be written to the lock, if it cannot: it is
 * not an http(s) URL, or it holds a literal credential.
 */
export function urlProblem(url: string): string | undefined {
  const problem = coreUrlProblem(url);
  return problem === undefined || !problem.includes("credential")
    ? problem
    : `${problem} and is never written to the lock; in the config, write it as a reference such as ` +
        "${API_KEY} (and set that variable when verifying), or send it in a header";
}
