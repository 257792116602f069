import { ContractpinError } from "../core/errors.js";
import type { AuthMode } from "../core/source/server-auth.js";
import { visibleText } from "../core/visible-text.js";

/** What decides whether a `403 insufficient_scope` may be answered by asking for a wider token. */
export interface StepUp {
  /** Every scope asked for or granted so far, and the one the server now demands (a union). */
  scope: string | undefined;
  /** Whether this session already stepped up once. */
  steppedUp: boolean;
  /** How the server's credential is got (`login`: the stored one). */
  mode: AuthMode;
  /** The server's lock name, where it has one. */
  server: string | undefined;
  url: URL;
}

/**
 * Why a scope challenge (MCP authorization, "Scope challenge handling") ends
 * the server here, or undefined when the token may be asked for again with
 * the union of scopes: only a client_credentials flow can, and only once, so
 * that a server that keeps demanding more never makes a loop. A stored login
 * needs a person to consent to the wider scope, and a refresh cannot widen a
 * grant (RFC 6749 §6): both fail with one line saying what to do. The scope
 * is the server's text: shown through visibleText, and quoted for a shell.
 */
export function stepUpRefused(step: StepUp): ContractpinError<string> | undefined {
  const shown = visibleText(step.scope ?? "");
  if (step.steppedUp) {
    return new ContractpinError(
      "AUTH_FAILED",
      `the server still answered 403 insufficient_scope (scope ${shellQuote(shown)}) after one step-up`,
    );
  }
  if (step.mode === "client_credentials") return undefined;
  if (step.mode === "refresh_token") {
    return new ContractpinError(
      "AUTH_FAILED",
      `the server needs the scope ${shellQuote(shown)}, which a refresh token cannot add: ` +
        "get a new refresh token that has it",
    );
  }
  // As loginHint: by name, and by URL for a server that is not in the lock yet.
  const scope = `--scope ${shellQuote(shown)}`;
  const byUrl = `contractpin login --url ${step.url.href} ${scope}`;
  return new ContractpinError(
    "AUTH_REQUIRED",
    `the server needs the scope ${shellQuote(shown)}, which the stored login lacks: run: ` +
      (step.server === undefined
        ? byUrl
        : `contractpin login ${step.server} ${scope} (for a server not in the lock yet: ${byUrl})`),
  );
}

/** `text` in single quotes for a POSIX shell. */
function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
