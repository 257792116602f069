import { Pace } from "./pace.js";

/**
 * The two headers of an image registry's answer that contractpin reads:
 * `WWW-Authenticate` (RFC 7235) and `Link` (RFC 8288). Each is read in one
 * forward pass, linear in the header (a registry chooses it), its work
 * counted in `pace`.
 */

/** A challenge's scheme (lower case, "" when it has none) and its parameters (names in lower case). */
export interface Challenge {
  scheme: string;
  params: Record<string, string>;
}

/**
 * Reads `Bearer realm="…",service="…",scope="…"`: a parameter is a name of
 * letters and `_`, `=`, then a quoted string (backslash escapes a character)
 * or a bare value up to a comma or a blank. The first of a name counts. A
 * quoted value the header never closes ends the header (everything after it
 * is inside the quotes).
 */
export function readChallenge(header: string, pace: Pace = new Pace()): Challenge {
  pace.count(header.length);
  const n = header.length;
  let i = 0;
  while (i < n && isBlank(header.charCodeAt(i))) i++;
  const schemeStart = i;
  while (i < n && isWordChar(header.charCodeAt(i))) i++;
  const scheme = header.slice(schemeStart, i).toLowerCase();
  const params: Record<string, string> = {};
  while (i < n) {
    const nameStart = i;
    while (i < n && isNameChar(header.charCodeAt(i))) i++;
    if (i === nameStart || header.charCodeAt(i) !== 0x3d /* = */) {
      if (i === nameStart) i++; // not a parameter's start: go on to the next character
      continue;
    }
    const name = header.slice(nameStart, i).toLowerCase();
    i++;
    let value = "";
    if (header.charCodeAt(i) === 0x22 /* " */) {
      const parts: string[] = [];
      let from = ++i;
      for (;;) {
        if (i >= n) return { scheme, params }; // never closed
        const c = header.charCodeAt(i);
        if (c === 0x22) break;
        if (c === 0x5c /* \ */) {
          parts.push(header.slice(from, i));
          from = ++i; // the escaped character is kept as it is
        }
        i++;
      }
      parts.push(header.slice(from, i++));
      value = parts.join("");
    } else {
      const valueStart = i;
      while (i < n && header.charCodeAt(i) !== 0x2c /* , */ && !isBlank(header.charCodeAt(i))) i++;
      value = header.slice(valueStart, i);
    }
    if (!Object.hasOwn(params, name)) params[name] = value;
  }
  return { scheme, params };
}

/**
 * The target of the first `rel="next"` link of a `Link` header (`<URL>;
 * rel="next"`, rel bare or quoted, one of its space-separated types), resolved
 * against `base`; undefined when there is none or it is not a URL.
 */
export function nextLink(
  header: string | null,
  base: URL,
  pace: Pace = new Pace(),
): URL | undefined {
  if (header === null) return undefined;
  pace.count(header.length);
  let at = 0;
  for (;;) {
    const open = header.indexOf("<", at);
    if (open < 0) return undefined;
    const close = header.indexOf(">", open + 1);
    if (close < 0) return undefined;
    let end = header.indexOf(",", close + 1);
    if (end < 0) end = header.length;
    if (relIsNext(header.slice(close + 1, end))) {
      try {
        return new URL(header.slice(open + 1, close), base);
      } catch {
        return undefined;
      }
    }
    at = end;
  }
}

/** Whether a link's parameters (`; rel="next"; type=…`) give it the relation type `next`. */
function relIsNext(params: string): boolean {
  for (const param of params.split(";")) {
    const eq = param.indexOf("=");
    if (eq < 0 || param.slice(0, eq).trim().toLowerCase() !== "rel") continue;
    let value = param.slice(eq + 1).trim();
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2)
      value = value.slice(1, -1);
    return value
      .toLowerCase()
      .split(/[ \t]+/)
      .includes("next");
  }
  return false;
}

function isBlank(c: number): boolean {
  return c === 0x20 || c === 0x09;
}

function isNameChar(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f;
}

function isWordChar(c: number): boolean {
  return isNameChar(c) || (c >= 0x30 && c <= 0x39);
}
