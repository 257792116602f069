import { WRAPPED_ENTRY_VARIABLE } from "../../core/source/guard-command.js";
import { REFERENCE } from "../../core/source/secrets.js";
import type { ServerSource } from "../../core/source/server-source.js";
import { referencedVariables } from "../../core/source/server-source.js";
import type { ConfigFormat } from "../formats.js";
import type { ImportedServer } from "../map-server.js";
import type { RawServer } from "../raw-server.js";
import { inputVariable } from "../references.js";

/**
 * The env variable of a wrapped entry that holds the entry's original text,
 * byte for byte: what `unwrap` puts back, and how a wrapped entry is known.
 * An env member because every client accepts `env` on a stdio entry (an
 * unknown key could be refused), and the guard passes only the lock's env on
 * to the server, so the server never sees it.
 */
export const ORIGINAL_VARIABLE = WRAPPED_ENTRY_VARIABLE;

/**
 * The keys of an entry that say how to reach the server. Wrapping replaces
 * them with the guard's `command`, `args` and `env` (and `type: "stdio"` where
 * the entry had a type); every other key (`disabled`, `timeout`, `trust`,
 * `startup_timeout_sec`, ...) is kept as written.
 */
export const TRANSPORT_KEYS = new Set([
  "type",
  "transport",
  "transportType",
  "command",
  "args",
  "env",
  "env_vars",
  "cwd",
  "url",
  "httpUrl",
  "serverUrl",
  "headers",
  "http_headers",
  "env_http_headers",
  "bearer_token_env_var",
]);

/** What a wrapped entry holds, whatever its syntax. */
export interface GuardFields {
  command: string;
  args: string[];
  /** Name → value as the client spells it (a literal, `${input:ID}`, `${env:VAR}`, ...). */
  env: Array<[string, string]>;
  /** Codex: variables to pass through from its environment (`env_vars`). */
  envVars: string[];
  /** The entry's original text. */
  original: string;
}

/** Every string of an entry as written, where a reference may be spelled. */
function rawStrings(raw: RawServer): string[] {
  return [
    raw.command ?? "",
    ...raw.args,
    ...Object.values(raw.env),
    raw.cwd ?? "",
    raw.url ?? "",
    ...Object.values(raw.headers),
  ];
}

/** How the client spells the value of `variable` for this entry, if the entry says. */
function spelling(variable: string, raw: RawServer): string | undefined {
  for (const text of rawStrings(raw)) {
    for (const m of text.matchAll(/\$\{input:([^}]*)\}/g)) {
      if (inputVariable(m[1]!) === variable) return m[0];
    }
    if (text.includes(`\${env:${variable}}`)) return `\${env:${variable}}`;
    if ([...text.matchAll(REFERENCE)].some((m) => m[1] === variable)) return `\${${variable}}`;
  }
  return Object.values(raw.env).includes(`$${variable}`) ? `$${variable}` : undefined;
}

/**
 * The guard's entry for a server pinned as `source`: it launches
 * `LAUNCHER... guard NAME --lock LOCK` (LOCK as `lockArg` names it, else `lockPath`), and gives the guard, in `env`, each
 * variable the lock's definition refers to, spelled as the client spelled it
 * (a literal secret that `init` moved to `${VAR}` is given as the same
 * literal, so the guard can expand `${VAR}`). A variable the entry takes from
 * the environment is left to the client's environment (Codex: `env_vars`).
 */
export function guardFields(
  name: string,
  raw: RawServer,
  imported: ImportedServer,
  source: ServerSource,
  format: ConfigFormat,
  launch: { launcher: readonly string[]; lockPath: string; lockArg?: string },
  original: string,
): GuardFields {
  const env: Array<[string, string]> = [];
  const envVars: string[] = [];
  for (const variable of referencedVariables(source)) {
    const value = Object.hasOwn(imported.secretValues, variable)
      ? imported.secretValues[variable]
      : spelling(variable, raw);
    if (value !== undefined) env.push([variable, value]);
    else if (format === "codex") envVars.push(variable);
  }
  env.push([ORIGINAL_VARIABLE, original]);
  return {
    command: launch.launcher[0]!,
    args: [...launch.launcher.slice(1), "guard", name, "--lock", launch.lockArg ?? launch.lockPath],
    env,
    envVars,
    original,
  };
}
