import { ContractpinError } from "../errors.js";
import {
  argsCredential,
  isLiteralEnvCredential,
  mixedSecret,
  parseUrlTemplate,
  urlCredential,
} from "./credential-scan.js";
import { setMember, type JsonValue } from "../json/json-value.js";
import { validateAuth } from "./server-auth.js";
import { hasReference, headerReference, variableName } from "./secrets.js";
import type { HttpSource, ServerSource, StdioSource } from "./server-source.js";

/** A server definition made safe to write, and what was left out of it. */
export interface SafeSource {
  source: ServerSource;
  /** One line per header that was dropped (its value is never written). */
  warnings: string[];
}

/**
 * Applies the rule that no secret is ever written to the lock (spec 5):
 *
 * - an HTTP header is kept only as a template with a `${VAR}` reference
 *   (`Bearer ${TOKEN}`); a literal value that looks like a credential (by the
 *   header's name or the value's shape) is refused like an env value, with the
 *   reference to use instead; any other literal is dropped, with a warning;
 * - a stdio `env` value, argument, or URL part that looks like a credential
 *   (by its name, or by its shape) must be a `${VAR}` reference, or the
 *   definition is refused (SECRET_IN_DEFINITION, exit 2) rather than written.
 *
 * @param server the server's name, for messages.
 */
export function safeSource(server: string, source: ServerSource): SafeSource {
  switch (source.transport) {
    case "stdio":
      return { source: safeStdio(server, source), warnings: [] };
    case "http":
      return safeHttp(server, source);
    case "file":
      return { source, warnings: [] };
  }
}

function safeStdio(server: string, source: StdioSource): StdioSource {
  for (const [name, value] of Object.entries(source.env ?? {})) {
    const risky = hasReference(value) ? mixedSecret(value) : isLiteralEnvCredential(name, value);
    if (risky) refuse(server, `env ${name}`, `--env ${name}='\${${name}}'`);
  }
  const problem = argsCredential(source.command);
  if (problem !== undefined) {
    const assigned = /\((\w[\w.-]*)=\u2026\)/.exec(problem)?.[1];
    refuse(
      server,
      `the command's ${problem.replace(/ looks like a credential$/, "")}`,
      assigned === undefined
        ? "an argument such as '${API_KEY}'"
        : `the argument '${assigned}=\${${variableName(assigned)}}'`,
    );
  }
  return source;
}

function safeHttp(server: string, source: HttpSource): SafeSource {
  const url = parseUrlTemplate(source.url);
  if (url === undefined) {
    throw new ContractpinError("SOURCE_INVALID", `server ${server}: the URL is not a valid URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ContractpinError(
      "SOURCE_INVALID",
      `server ${server}: the URL must be http: or https:, not ${url.protocol}`,
    );
  }
  const inUrl = urlCredential(url, true);
  if (inUrl !== undefined) {
    refuse(
      server,
      `the URL's ${inUrl.replace(/^(a |its |the )/, "")}`,
      "a header such as 'Authorization: Bearer ${TOKEN}'",
    );
  }
  const warnings: string[] = [];
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(source.headers ?? {})) {
    if (hasReference(value) && !mixedSecret(value)) {
      setMember(headers, name, value);
    } else if (
      hasReference(value) ||
      isLiteralEnvCredential(name, value) ||
      /^(bearer|basic|token)\s+\S/i.test(value)
    ) {
      // The same rule as --env: a credential is given as a reference, or not at all.
      const { template, variable } = headerReference(server, name, value);
      throw new ContractpinError(
        "SECRET_IN_DEFINITION",
        `server ${server}: header ${name} holds a literal credential, which is never written to the lock; ` +
          `pass it as a reference to an environment variable instead, e.g. --header '${name}: ${template}' ` +
          `and set ${variable} when reading the server`,
      );
    } else {
      warnings.push(
        `server ${server}: header ${name} is not written to the lock (literal header values never are); ` +
          `write it as a reference, e.g. --header '${name}: \${VAR}', to send it when verifying`,
      );
    }
  }
  const safe: HttpSource = { transport: "http", url: source.url };
  if (Object.keys(headers).length > 0) safe.headers = headers;
  // Its secrets must be references, as the lock reader demands.
  if (source.auth !== undefined) {
    safe.auth = validateAuth(
      source.auth as unknown as JsonValue,
      "auth",
      "SECRET_IN_DEFINITION",
      `server ${server}: `,
    );
  }
  return { source: safe, warnings };
}

function refuse(server: string, what: string, instead: string): never {
  throw new ContractpinError(
    "SECRET_IN_DEFINITION",
    `server ${server}: ${what} looks like a credential and would be written to the lock; ` +
      `pass it as a reference to an environment variable instead, e.g. ${instead}`,
  );
}
