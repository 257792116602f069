import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";

/**
 * npm's configuration as npm itself layers it, highest first: `npm_config_*`
 * environment variables, the project's `.npmrc` (in the nearest folder above
 * the server's working directory that has a package.json or node_modules),
 * the user's (`npm_config_userconfig`, default ~/.npmrc) and the global one
 * (`npm_config_globalconfig`, default PREFIX/etc/npmrc). Values may hold
 * `${VAR}`, expanded from the environment as npm expands them.
 */
export interface NpmConfig {
  get(key: string): string | undefined;
  /** Every key set in any layer. */
  keys(): Iterable<string>;
}

type Env = Readonly<Record<string, string | undefined>>;

/** Parses an .npmrc (ini: `key = value`, `;` and `#` comments), expanding `${VAR}` from env. */
export function parseNpmrc(text: string, env: Env): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const trimmed = line.trim();
    if (trimmed === "" || trimmed.startsWith(";") || trimmed.startsWith("#")) continue;
    const eq = trimmed.indexOf("=");
    if (eq < 0) continue;
    const key = expand(trimmed.slice(0, eq).trim(), env);
    let value = trimmed.slice(eq + 1).trim();
    if (/^"(?:[^"\\]|\\.)*"$/.test(value)) value = JSON.parse(value) as string;
    else if (/^'.*'$/.test(value)) value = value.slice(1, -1);
    out.set(key, expand(value, env));
  }
  return out;
}

function expand(text: string, env: Env): string {
  // A run of backslashes is matched from its first one only (the lookbehind): tried from each
  // of them, a long run that no `${` follows would cost its length squared.
  return text.replace(/(?<!\\)(\\*)\$\{([^${}]+)\}/g, (whole, escapes: string, name: string) =>
    escapes.length % 2 === 1 ? whole.slice(1) : `${escapes}${env[name] ?? ""}`,
  );
}

function readRc(path: string, env: Env): Map<string, string> {
  try {
    return parseNpmrc(readFileSync(path, "utf8"), env);
  } catch {
    return new Map();
  }
}

/** npm's local prefix: the nearest folder from `dir` up with a package.json or node_modules. */
function localPrefix(dir: string): string {
  for (let at = resolve(dir); ; at = dirname(at)) {
    if (existsSync(join(at, "package.json")) || existsSync(join(at, "node_modules"))) return at;
    if (dirname(at) === at) return resolve(dir);
  }
}

/** The environment's `npm_config_*` settings (npm reads the prefix case-insensitively). */
function envConfig(env: Env): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined || !/^npm_config_/i.test(key)) continue;
    // npm turns `_` into `-` in names, except in a leading `_` (`_authToken`) and in `//host` keys.
    const name = key.slice("npm_config_".length);
    out.set(name.startsWith("//") || name.startsWith("_") ? name : name.toLowerCase(), value);
  }
  return out;
}

/**
 * npm's configuration for a server run in `cwd`.
 *
 * @param home the user's home (default os.homedir()).
 * @param execPath the node binary, whose prefix holds the global npmrc (default process.execPath).
 */
export function loadNpmConfig(
  cwd: string,
  env: Env,
  home = homedir(),
  execPath = process.execPath,
): NpmConfig {
  const fromEnv = envConfig(env);
  const prefix = fromEnv.get("prefix") ?? dirname(dirname(execPath));
  const layers = [
    fromEnv,
    readRc(join(localPrefix(cwd), ".npmrc"), env),
    readRc(fromEnv.get("userconfig") ?? join(home, ".npmrc"), env),
    readRc(fromEnv.get("globalconfig") ?? join(prefix, "etc", "npmrc"), env),
  ];
  return {
    get: (key) => {
      for (const layer of layers) if (layer.has(key)) return layer.get(key);
      return undefined;
    },
    keys: () => new Set(layers.flatMap((layer) => [...layer.keys()])),
  };
}

/** The registry npm uses for a package: `@scope:registry`, else `registry`, else npm's default. */
export function registryFor(config: NpmConfig, name: string): string {
  const scope = name.startsWith("@") ? name.slice(0, name.indexOf("/")) : undefined;
  const url =
    (scope === undefined ? undefined : config.get(`${scope}:registry`)) ??
    config.get("registry") ??
    "https://registry.npmjs.org/";
  return url.endsWith("/") ? url : `${url}/`;
}

/**
 * The Authorization header npm sends to `registry`: the `_authToken`, `_auth`
 * or `username` + `_password` of the longest `//host/path/:` key that the
 * registry's URL starts with (npm's "nerf dart"). Never logged or printed.
 */
export function authorizationFor(config: NpmConfig, registry: string): string | undefined {
  const url = new URL(registry);
  const path = url.pathname.endsWith("/") ? url.pathname : `${url.pathname}/`;
  const target = `//${url.host}${path}`;
  // The `//host/path/` prefixes of the target that some key is set for, longest first: the
  // same order as walking up the path a segment at a time, without building a key for each
  // segment of a URL that may have thousands.
  const nerfs = new Set<string>();
  for (const key of config.keys()) {
    const colon = key.lastIndexOf(":");
    const nerf = key.slice(0, colon);
    const field = key.slice(colon + 1);
    if (CREDENTIAL_FIELDS.has(field) && nerf.startsWith("//") && nerf.endsWith("/")) {
      if (target.startsWith(nerf)) nerfs.add(nerf);
    }
  }
  for (const nerf of [...nerfs].sort((a, b) => b.length - a.length)) {
    const token = config.get(`${nerf}:_authToken`);
    if (token) return `Bearer ${token}`;
    const auth = config.get(`${nerf}:_auth`);
    if (auth) return `Basic ${auth}`;
    const user = config.get(`${nerf}:username`);
    const password = config.get(`${nerf}:_password`);
    if (user && password) {
      const plain = Buffer.from(password, "base64").toString("utf8");
      return `Basic ${Buffer.from(`${user}:${plain}`).toString("base64")}`;
    }
  }
  return undefined;
}

const CREDENTIAL_FIELDS = new Set(["_authToken", "_auth", "username", "_password"]);
