import { isContractpinError } from "../core/errors.js";
import { redactor, type Redact } from "../core/redact.js";
import { expandedValues, type ServerSource } from "../core/server-source.js";
import type { ReadContext } from "../sources/read-tools.js";

/** An error that carries extra lines for people, such as a server's last stderr lines. */
export interface WithDetail {
  detail?: string[];
}

/**
 * One line (and any detail lines) that say why a server could not be read or
 * pinned, each passed through `redact`.
 */
export function failureLines(
  err: unknown,
  redact: Redact = (text) => text,
): { message: string; detail: string[] } {
  const detail = ((err as WithDetail | undefined)?.detail ?? []).map(redact);
  if (isContractpinError(err)) return { message: redact(err.message), detail };
  const message = err instanceof Error ? err.message : String(err);
  return { message: redact(`internal error: ${message}`), detail };
}

/**
 * The one place where a server's secrets are kept out of what contractpin
 * says about it: every value the read of `source` expands from the
 * environment (argv, env, URL, header references) is shown as its `${NAME}`,
 * in the failure (message and the server's stderr lines, and so in text,
 * `--json` and progress output alike) and in every warning the read gives,
 * which also names the server `name`.
 *
 * @returns the context to read the server with, and the redaction for its failure.
 */
export function guardSecrets(
  name: string,
  source: ServerSource,
  ctx: ReadContext,
): { ctx: ReadContext; redact: Redact; expanded: boolean } {
  const pairs = expandedValues(source, ctx.env);
  const redact = redactor(pairs);
  return {
    // Servers are read concurrently: each warning names the server it is about.
    ctx: {
      ...ctx,
      server: name,
      warn: (message) => ctx.warn(`server ${name}: ${redact(message)}`),
    },
    redact,
    expanded: pairs.length > 0,
  };
}
