import { argsCredential } from "../core/source/credential-scan.js";
import { isContractpinError } from "../core/errors.js";
import { setMember } from "../core/json/json-value.js";
import { looksLikeSecretValue } from "../core/source/secrets.js";
import type { HttpSource, ServerSource, StdioSource } from "../core/source/server-source.js";
import { safeSource } from "../core/source/source-policy.js";
import { packageRunnerWarning } from "../core/source/package-runner.js";
import type { RawServer } from "./raw-server.js";
import {
  inputVariable,
  isBareReference,
  rewriteReferences,
  type MapContext,
  type Rewrite,
} from "./references.js";
import { moveEnvSecrets, moveHeaderSecrets, urlProblem } from "./secret-literals.js";
import { workingDirectory } from "./workspace-paths.js";

export type { MapContext, Rewrite } from "./references.js";

/** A server imported from a client config. */
export interface ImportedServer {
  /** The config's name for it, which becomes its name in the lock. */
  name: string;
  /** What the lock gets: references only, never a literal secret. */
  source: ServerSource;
  /**
   * Values for the references this import introduced in place of literal
   * secrets (VAR → value), used only to read the server now; never written.
   */
  secretValues: Record<string, string>;
  /** The config file it came from. */
  file: string;
}

/** The outcome for one entry: the server, or why it is skipped; warnings either way. */
export type Mapped =
  { server: ImportedServer; warnings: string[] } | { skip: string; warnings: string[] };

// The spellings of the HTTP transports across clients. contractpin's http
// transport tries Streamable HTTP and falls back to SSE by itself.
const HTTP_TYPES = new Set(["http", "streamable-http", "streamable_http", "streamableHttp", "sse"]);
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Thrown inside this file to skip a server; caught by mapServer. */
class Skip extends Error {}

function transportOf(raw: RawServer): "stdio" | "http" {
  if (raw.type !== undefined) {
    if (raw.type === "stdio") {
      if (raw.command === undefined) throw new Skip("its type is stdio but it has no command");
      return "stdio";
    }
    if (!HTTP_TYPES.has(raw.type)) {
      throw new Skip(
        `its transport type '${raw.type}' is not supported (contractpin reads stdio and HTTP servers)`,
      );
    }
    if (raw.url === undefined) throw new Skip(`its type is ${raw.type} but it has no url`);
    return "http";
  }
  if (raw.command !== undefined && raw.url !== undefined) {
    throw new Skip("it has both a command and a url, and no type to choose between them");
  }
  if (raw.command !== undefined) return "stdio";
  if (raw.url !== undefined) return "http";
  throw new Skip("it has neither a command nor a url");
}

/**
 * Turns one config entry into a server definition for the lock, applying the
 * reference rules (references.ts), the secret rules (secret-literals.ts) and,
 * as a last guard, the lock's own policy (src/core/source/source-policy.ts).
 *
 * @param ctx what `${workspaceFolder}` and `${userHome}` stand for.
 */
export function mapServer(name: string, raw: RawServer, file: string, ctx: MapContext): Mapped {
  const label = `${file}: server ${name}`;
  const warnings: string[] = [];
  const rewrite: Rewrite = (value, at = ctx) => {
    const r = rewriteReferences(value, at);
    if (!r.ok) throw new Skip(r.reason);
    for (const id of r.inputs) {
      const variable = inputVariable(id);
      if (ctx.env !== undefined && !ctx.env[variable]) {
        throw new Skip(
          `\${input:${id}} is a VS Code input, which VS Code prompts for; contractpin reads it ` +
            `from ${variable}, which is not set: set it and run init again to pin this server`,
        );
      }
      const warning =
        `${label}: \${input:${id}} is a VS Code input, which VS Code prompts for; contractpin ` +
        `reads it from the environment as \${${variable}}: set ${variable} when verifying`;
      if (!warnings.includes(warning)) warnings.push(warning);
    }
    return r.value;
  };
  try {
    const built =
      transportOf(raw) === "stdio"
        ? stdio(name, raw, label, rewrite, warnings, ctx)
        : http(name, raw, label, rewrite, warnings);
    return {
      server: {
        name,
        file,
        ...guard(name, built.source, warnings),
        secretValues: built.secretValues,
      },
      warnings,
    };
  } catch (err) {
    if (err instanceof Skip) return { skip: err.message, warnings };
    throw err;
  }
}

interface Built {
  source: ServerSource;
  secretValues: Record<string, string>;
}

function stdio(
  name: string,
  raw: RawServer,
  label: string,
  rewrite: Rewrite,
  warnings: string[],
  ctx: MapContext,
): Built {
  if (raw.command === "") throw new Skip("its command is empty");
  const { cwd, at } = workingDirectory(raw, rewrite, ctx);
  const command = [rewrite(raw.command!, at), ...raw.args.map((a) => rewrite(a, at))];
  const found = argsCredential(command.slice(1));
  if (found !== undefined) {
    throw new Skip(
      `${found}, and a literal credential is never written to the lock; in the config, ` +
        "write it as a reference such as ${API_KEY} (and set that variable when verifying), " +
        "or give it to the server through env",
    );
  }
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(raw.env)) {
    if (isBareReference(value) && !looksLikeSecretValue(value.slice(1))) {
      // Gemini CLI expands "$VAR" in env values; contractpin spells it ${VAR}.
      setMember(env, key, `\${${value.slice(1)}}`);
      warnings.push(
        `${label}: env ${key} is '${value}', which Gemini CLI expands; the lock refers to ` +
          `\${${value.slice(1)}}: set ${value.slice(1)} when verifying`,
      );
    } else {
      setMember(env, key, rewrite(value, at));
    }
  }
  const moved = moveEnvSecrets(label, name, env);
  if ("reason" in moved) throw new Skip(moved.reason);
  warnings.push(...moved.warnings);
  for (const key of raw.nullEnv) {
    warnings.push(
      `${label}: env ${key} is null (unset), which a lock cannot express; it is left out`,
    );
  }
  if (raw.envFile !== undefined) {
    warnings.push(
      `${label}: envFile ${raw.envFile} is not read; contractpin gives the server only its env ` +
        "entries and the environment contractpin runs in",
    );
  }
  const runner = packageRunnerWarning(label, command);
  if (runner !== undefined) warnings.push(runner);
  const source: StdioSource = { transport: "stdio", command };
  if (Object.keys(moved.value).length > 0) source.env = moved.value;
  if (cwd !== undefined) source.cwd = cwd;
  return { source, secretValues: moved.secretValues };
}

function http(
  name: string,
  raw: RawServer,
  label: string,
  rewrite: Rewrite,
  warnings: string[],
): Built {
  const url = rewrite(raw.url!);
  const problem = urlProblem(url);
  if (problem !== undefined) throw new Skip(problem);
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(raw.headers)) setMember(headers, key, rewrite(value));
  // Codex names the variables that hold header values instead of the values.
  for (const [key, variable] of Object.entries(raw.envHeaders)) {
    if (!IDENTIFIER.test(variable))
      throw new Skip(`env_http_headers.${key} is not a variable name`);
    setMember(headers, key, `\${${variable}}`);
  }
  if (raw.bearerTokenEnvVar !== undefined) {
    if (!IDENTIFIER.test(raw.bearerTokenEnvVar)) {
      throw new Skip("bearer_token_env_var is not a variable name");
    }
    setMember(headers, "Authorization", `Bearer \${${raw.bearerTokenEnvVar}}`);
  }
  const moved = moveHeaderSecrets(label, name, headers);
  if ("reason" in moved) throw new Skip(moved.reason);
  warnings.push(...moved.warnings);
  const source: HttpSource = { transport: "http", url };
  if (Object.keys(moved.value).length > 0) source.headers = moved.value;
  return { source, secretValues: moved.secretValues };
}

/**
 * The lock's own policy, applied last so that nothing this file lets through
 * can differ from what `contractpin add` would accept.
 */
function guard(name: string, source: ServerSource, warnings: string[]): { source: ServerSource } {
  try {
    const safe = safeSource(name, source);
    warnings.push(...safe.warnings);
    return { source: safe.source };
  } catch (err) {
    if (isContractpinError(err, "SECRET_IN_DEFINITION", "SOURCE_INVALID")) {
      throw new Skip(err.message.replace(/^server .*?: /s, ""));
    }
    throw err;
  }
}
