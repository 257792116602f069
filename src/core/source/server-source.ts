import { ContractpinError } from "../errors.js";
import { REFERENCE } from "./secrets.js";
import { authTemplates, type HttpAuth } from "./server-auth.js";

/** A server read by spawning a command and speaking MCP over its stdio. */
export interface StdioSource {
  transport: "stdio";
  /** argv, spawned directly (no shell). Strings may hold `${VAR}` references. */
  command: string[];
  /** Extra environment for the child; values may hold `${VAR}` references. */
  env?: Record<string, string>;
  /** Working directory, relative to the lock's directory. */
  cwd?: string;
}

/** A server reached over Streamable HTTP (or legacy HTTP+SSE). */
export interface HttpSource {
  transport: "http";
  url: string;
  /** Header templates holding `${VAR}` references; literal values are never stored. */
  headers?: Record<string, string>;
  /** How the server authenticates (OAuth); secrets in it are `${VAR}` references only. */
  auth?: HttpAuth;
}

/** A tools/list dump on disk, relative to the lock's directory. */
export interface FileSource {
  transport: "file";
  path: string;
}

/** How to reach a server: the lock's per-server keys other than the digests. */
export type ServerSource = StdioSource | HttpSource | FileSource;

/** The transports a lock may name. */
export const TRANSPORTS = ["stdio", "http", "file"] as const;

/**
 * Expands every `${VAR}` in `template` from `env`. A reference to an unset
 * variable, or to one set to the empty string (what CI gives for a secret that
 * does not exist), is an error: a server must never be reached with a blank secret.
 *
 * @throws ContractpinError ENV_UNSET naming the variable and `where` it is used.
 */
export function expandReferences(
  template: string,
  env: Readonly<Record<string, string | undefined>>,
  where: string,
): string {
  // Any other ${...} (${env:X}, ${input:Y}) would be sent literally: refuse it.
  const rest = template.replace(REFERENCE, "");
  const stray = rest.indexOf("${");
  if (stray !== -1) {
    const end = rest.indexOf("}", stray);
    const shown = rest.slice(stray, end === -1 ? stray + 20 : end + 1);
    throw new ContractpinError(
      "ENV_UNSET",
      `${where} has '${shown}', which is not a reference contractpin can expand (only \${NAME}, from the environment)`,
    );
  }
  return template.replace(REFERENCE, (_, name: string) => {
    const value = env[name];
    if (value === undefined) {
      throw new ContractpinError(
        "ENV_UNSET",
        `${where} refers to \${${name}}, but ${name} is not set in the environment`,
      );
    }
    if (value === "") {
      throw new ContractpinError(
        "ENV_UNSET",
        `${where} refers to \${${name}}, but ${name} is empty in the environment`,
      );
    }
    return value;
  });
}

/** The strings of a definition that are expanded when it is read (argv, env values, URL, headers, auth). */
function templates(source: ServerSource): string[] {
  switch (source.transport) {
    case "stdio":
      return [...source.command, ...Object.values(source.env ?? {})];
    case "http":
      return [source.url, ...Object.values(source.headers ?? {}), ...authTemplates(source.auth)];
    case "file":
      return [];
  }
}

/** The variables a server definition refers to, each once, in order of first use. */
export function referencedVariables(source: ServerSource): string[] {
  const names = templates(source).flatMap((t) => [...t.matchAll(REFERENCE)].map((m) => m[1]!));
  return [...new Set(names)];
}

/**
 * The variables a server definition refers to that are unset or empty in
 * `env`: a server that reading would refuse (expandReferences), each once.
 */
export function unsetVariables(
  source: ServerSource,
  env: Readonly<Record<string, string | undefined>>,
): string[] {
  return referencedVariables(source).filter((name) => env[name] === undefined || env[name] === "");
}

/**
 * What reading `source` expands from `env`, as `[value, "${NAME}"]` pairs,
 * longest value first: the text to put back in place of each value wherever
 * contractpin prints or writes something about the server (src/core/source/redact.ts).
 * Unset and empty variables have no value to hide.
 */
export function expandedValues(
  source: ServerSource,
  env: Readonly<Record<string, string | undefined>>,
): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (const name of referencedVariables(source)) {
    const value = env[name];
    if (value !== undefined && value !== "") pairs.push([value, `\${${name}}`]);
  }
  return pairs.sort((a, b) => b[0].length - a[0].length);
}

/** One line naming where a server is, for people: the command, URL or path. */
export function describeSource(source: ServerSource): string {
  switch (source.transport) {
    case "stdio":
      return source.command.join(" ");
    case "http":
      return source.url;
    case "file":
      return source.path;
  }
}
