import { redactor, type Redact } from "./redact.js";
import { expandedValues, type ServerSource } from "./server-source.js";

/** What `guardSecrets` needs of a read's context: where references expand from, and where warnings go. */
export interface SecretContext {
  env: Readonly<Record<string, string | undefined>>;
  server?: string;
  warn: (message: string) => void;
}

/**
 * The one place where a server's secrets are kept out of what contractpin
 * says about it: every value the read of `source` expands from the
 * environment (argv, env, URL, header references) is shown as its `${NAME}`,
 * in the failure (message and the server's stderr lines, and so in text,
 * `--json` and progress output alike) and in every warning the read gives,
 * which also names the server `name`. Pure; used by the engine and the guard.
 *
 * @returns the context to read the server with, and the redaction for its failure.
 */
export function guardSecrets<C extends SecretContext>(
  name: string,
  source: ServerSource,
  ctx: C,
): { ctx: C; redact: Redact; expanded: boolean } {
  const pairs = expandedValues(source, ctx.env);
  const redact = redactor(pairs);
  return {
    // Servers are read concurrently: each warning names the server it is about.
    ctx: {
      ...ctx,
      server: name,
      warn: (message: string) => ctx.warn(`server ${name}: ${redact(message)}`),
    },
    redact,
    expanded: pairs.length > 0,
  };
}
