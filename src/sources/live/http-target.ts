import { ContractpinError } from "../../core/errors.js";
import { expandReferences, type HttpSource } from "../../core/source/server-source.js";

/**
 * The URL and headers of an HTTP server with every `${VAR}` expanded: what
 * verify reads and what the guard connects to, checked in one place so that
 * no error of fetch or of the MCP library, which quote what they refuse,
 * ever shows an expanded value.
 *
 * @throws ContractpinError SOURCE_INVALID for a URL that does not parse, one
 *   that holds a user name or password, or a header value with a line break
 *   or NUL; MISSING_ENV (from expandReferences) for an unset variable.
 */
export function httpTarget(
  source: HttpSource,
  env: Readonly<Record<string, string | undefined>>,
): { url: URL; headers: Record<string, string> } {
  const url = parseUrl(expandReferences(source.url, env, "the URL"));
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(source.headers ?? {})) {
    const expanded = expandReferences(value, env, `header ${name}`);
    if (/[\r\n\0]/.test(expanded)) {
      throw new ContractpinError(
        "SOURCE_INVALID",
        `header ${name} has a line break or NUL in its value once its references are expanded`,
      );
    }
    headers[name] = expanded;
  }
  return { url, headers };
}

function parseUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ContractpinError(
      "SOURCE_INVALID",
      "the URL is not a valid URL once its references are expanded",
    );
  }
  // fetch refuses such a URL with an error that quotes it whole, password included.
  if (url.username !== "" || url.password !== "")
    throw new ContractpinError(
      "SOURCE_INVALID",
      "the URL holds a user name or password, which an HTTP request cannot carry; send the credential in a header that refers to a variable",
    );
  return url;
}
