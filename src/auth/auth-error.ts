import {
  AuthorizationServerMismatchError,
  InsecureTokenEndpointError,
  IssuerMismatchError,
  OAuthError,
} from "@modelcontextprotocol/client";
import { ContractpinError, isContractpinError } from "../core/errors.js";
import { visibleText } from "../core/visible-text.js";

// An authorization server's own words are shown at most this long.
const MAX_SHOWN = 200;

/**
 * One line for a failed authorization, as a ContractpinError: ours as they
 * are; an authorization server's error code and `error_description` through
 * visibleText and cut short; a different authorization server than the one
 * the credential is bound to, by issuer; anything else by its kind only,
 * since the library's wording may quote a response.
 */
export function authFailure(err: unknown): ContractpinError<string> {
  if (isContractpinError(err)) return err;
  if (err instanceof AuthorizationServerMismatchError) {
    return new ContractpinError(
      "AUTH_FAILED",
      `the server now names the authorization server ${visibleText(err.currentIssuer)}, but its ` +
        `credential is from ${visibleText(err.recordedIssuer)}: nothing was sent to the new one ` +
        "(log in again if the change is expected)",
    );
  }
  if (err instanceof OAuthError) {
    const said = visibleText(err.message);
    const shown = said.length > MAX_SHOWN ? `${said.slice(0, MAX_SHOWN)}…` : said;
    return new ContractpinError(
      "AUTH_FAILED",
      `the authorization server refused: ${visibleText(String(err.code))}${shown ? `: ${shown}` : ""}`,
    );
  }
  if (err instanceof InsecureTokenEndpointError || err instanceof IssuerMismatchError) {
    return new ContractpinError("AUTH_FAILED", visibleText(err.message));
  }
  const code = (err as { cause?: { code?: unknown } } | undefined)?.cause?.code;
  if (err instanceof TypeError && typeof code === "string") {
    return new ContractpinError(
      "AUTH_FAILED",
      `cannot reach the authorization server (${visibleText(code)})`,
    );
  }
  const kind = err instanceof Error ? err.name : typeof err;
  return new ContractpinError("AUTH_FAILED", `the authorization failed (${visibleText(kind)})`, {
    cause: err,
  });
}
