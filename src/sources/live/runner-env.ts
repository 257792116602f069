import { containsSecret, urlCredential } from "../../core/source/credential-scan.js";

/**
 * What a package runner (npx, npm exec, pnpm dlx, bunx, uvx, pipx) needs to
 * reach its registry from behind a proxy or a private CA: proxies, CA files
 * and registry addresses, each passed to a stdio server only when its value is
 * what the variable holds and carries no credential. A value is judged by
 * what it is, never by one spelling of a credential: a URL is read the ways
 * the runners' HTTP clients read it (curl, requests and reqwest take
 * `user:password@proxy:3128` without a scheme as http://; reqwest and Node
 * take `https:\\user:password@host/` as https://user:password@host/), and
 * withheld when any reading holds a user name, a password, a credential in
 * its query or fragment, or a path segment shaped like a token. docs/servers.md
 * ("Servers") lists them.
 */

/** What a variable holds: one URL, URLs separated by blanks, a list of hosts, a file path, or a word. */
type Kind = "url" | "urls" | "hosts" | "path" | "word";

const KINDS: Record<string, Kind> = {
  HTTP_PROXY: "url",
  HTTPS_PROXY: "url",
  NO_PROXY: "hosts",
  http_proxy: "url",
  https_proxy: "url",
  no_proxy: "hosts",
  NODE_EXTRA_CA_CERTS: "path",
  SSL_CERT_FILE: "path",
  SSL_CERT_DIR: "path",
  REQUESTS_CA_BUNDLE: "path",
  NPM_CONFIG_REGISTRY: "url",
  npm_config_registry: "url",
  NPM_CONFIG_CAFILE: "path",
  npm_config_cafile: "path",
  NPM_CONFIG_STRICT_SSL: "word",
  npm_config_strict_ssl: "word",
  NPM_CONFIG_PROXY: "url",
  npm_config_proxy: "url",
  NPM_CONFIG_HTTPS_PROXY: "url",
  npm_config_https_proxy: "url",
  NPM_CONFIG_NOPROXY: "hosts",
  npm_config_noproxy: "hosts",
  NPM_CONFIG_USERCONFIG: "path",
  npm_config_userconfig: "path",
  NPM_CONFIG_GLOBALCONFIG: "path",
  npm_config_globalconfig: "path",
  PIP_INDEX_URL: "url",
  PIP_EXTRA_INDEX_URL: "urls",
  PIP_CERT: "path",
  PIP_CONFIG_FILE: "path",
  UV_INDEX: "urls",
  UV_INDEX_URL: "url",
  UV_DEFAULT_INDEX: "url",
  UV_EXTRA_INDEX_URL: "urls",
  UV_INDEX_STRATEGY: "word",
  UV_NATIVE_TLS: "word",
};

/** The runner variables a stdio server may take from contractpin's environment. */
export const RUNNER_ENV: readonly string[] = Object.keys(KINDS);

// The schemes of a proxy or an index.
const SCHEMES = new Set(["http:", "https:", "socks4:", "socks4a:", "socks5:", "socks5h:"]);
// A path segment that services use for a token (`https://pypi.fury.io/TOKEN/acme/`,
// `https://dl.cloudsmith.io/TOKEN/org/repo/`): 16 or more letters and digits mixing both, or a
// UUID. An index's own segments are words (`simple`, `pypi-remote`) or numbers (a project id).
const TOKEN_SEGMENT =
  /^(?=[A-Za-z0-9]*[0-9])(?=[A-Za-z0-9]*[A-Za-z])[A-Za-z0-9]{16,}$|^[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}$/i;
// A host list entry: a name or domain (`.corp.example`), `*`, an address, a CIDR range, a port.
const HOST_ENTRY = /^[A-Za-z0-9._*:/[\]-]*$/;
// uv's named index, `NAME=URL`, in UV_INDEX.
const NAMED_INDEX = /^[A-Za-z0-9_.-]+=(?=.)/;

/**
 * Why runner variable `name` is not passed to a server with this value (a
 * phrase naming what is wrong, never quoting the value), or undefined when it
 * is passed. A variable that is not a runner variable is never passed.
 */
export function withheldBecause(name: string, value: string): string | undefined {
  const kind = Object.hasOwn(KINDS, name) ? KINDS[name] : undefined;
  switch (kind) {
    case undefined:
      return "it is not a runner variable";
    case "url":
      return urlProblem(value);
    case "urls":
      for (const word of value.split(/\s+/).filter((w) => w !== "")) {
        const problem = urlProblem(name === "UV_INDEX" ? word.replace(NAMED_INDEX, "") : word);
        if (problem !== undefined) return problem;
      }
      return undefined;
    case "hosts": {
      const entries = value.split(",").map((e) => e.trim());
      if (!entries.every((e) => HOST_ENTRY.test(e))) return "it is not a list of hosts";
      return entries.some((e) => containsSecret(e)) ? "it holds a credential" : undefined;
    }
    case "path":
      return value.split(/[\\/]/).some((part) => containsSecret(part))
        ? "it holds a credential"
        : undefined;
    case "word":
      return /^[A-Za-z0-9_.-]{1,64}$/.test(value) && !containsSecret(value)
        ? undefined
        : "it is not a setting's word";
  }
}

/** Why a URL value is withheld, or undefined when every reading of it is a URL without a credential. */
function urlProblem(value: string): string | undefined {
  const readings = urlReadings(value);
  if (!readings.some((url) => SCHEMES.has(url.protocol))) return "it is not a URL";
  for (const url of readings) {
    const found =
      urlCredential(url, true) ??
      (url.pathname.split("/").some((s) => TOKEN_SEGMENT.test(s)) ? "a path segment" : undefined);
    if (found !== undefined) return `it is a URL with ${found} that may be a credential`;
  }
  return undefined;
}

/**
 * The URLs a value reads as: as WHATWG URL reads it (Node, reqwest: a
 * backslash after a special scheme is a slash), and, when it has no `://`, as
 * curl, requests and reqwest read a proxy without a scheme: after `http://`.
 */
function urlReadings(value: string): URL[] {
  const readings: URL[] = [];
  for (const text of value.includes("://") ? [value] : [value, `http://${value}`]) {
    try {
      readings.push(new URL(text));
    } catch {
      // Not a URL this way; another reading may be.
    }
  }
  return readings;
}
