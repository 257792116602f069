import { setMember } from "../core/json/json-value.js";

/**
 * The options that define a server on the command line (`add`, `dump`):
 * `--header 'K: V'`, `--env K=V` and `--url`. A problem is a usage error of
 * the calling command (`usage`), and never quotes a value: it may be a
 * credential.
 */

/** `--header 'Name: value'` options, as a header object (a later name wins). */
export function parseHeaders(
  list: readonly string[],
  usage: (message: string) => Error,
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const header of list) {
    const m = /^([^:\s]+)\s*:\s?(.*)$/s.exec(header);
    if (!m) throw usage("--header takes 'Name: value', with a colon after the name");
    setMember(headers, m[1]!, m[2]!);
  }
  return headers;
}

/** `--env NAME=VALUE` options, as an environment object (a later name wins). */
export function parseEnv(
  pairs: readonly string[],
  usage: (message: string) => Error,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf("=");
    if (eq <= 0) throw usage("--env takes NAME=VALUE, with a name before the '='");
    setMember(env, pair.slice(0, eq), pair.slice(eq + 1));
  }
  return env;
}

/** A URL with an http or https scheme (or a `${VAR}` expanded later); anything else says what is missing. */
export function checkUrl(url: string, usage: (message: string) => Error): void {
  // A reference is expanded later; the expanded URL is checked when it is read.
  if (/^https?:\/\//i.test(url) || url.startsWith("${")) return;
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1];
  throw usage(
    scheme === undefined
      ? "--url needs a full URL with its scheme, such as https://mcp.example.com/mcp"
      : `--url takes an http:// or https:// URL, not ${scheme}://`,
  );
}
