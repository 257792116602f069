import { resolve } from "node:path";
import { expandReferences, type StdioSource } from "../../core/server-source.js";
import type { ReadContext } from "../read-tools.js";
import type { SpawnSpec } from "./stdio-transport.js";

// What a stdio server inherits from contractpin's environment, as the MCP
// library does: enough to run, and none of CI's other secrets.
export const INHERITED_ENV = [
  "HOME",
  "LOGNAME",
  "PATH",
  "SHELL",
  "TERM",
  "USER",
  "TMPDIR",
  "LANG",
  "SYSTEMROOT",
];

// What a package runner (npx, npm exec, pnpm dlx, bunx, uvx, pipx) needs to
// reach its registry from behind a proxy or a private CA: proxies, CA
// files and registry addresses. Never a credential: no token or password
// variable is here, and a value that carries one in a URL (user:password@)
// is not passed (put it in the lock's env as a reference instead). The
// docs/servers.md, "Servers", lists them.
export const RUNNER_ENV = [
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "http_proxy",
  "https_proxy",
  "no_proxy",
  "NODE_EXTRA_CA_CERTS",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "REQUESTS_CA_BUNDLE",
  "NPM_CONFIG_REGISTRY",
  "npm_config_registry",
  "NPM_CONFIG_CAFILE",
  "npm_config_cafile",
  "NPM_CONFIG_STRICT_SSL",
  "npm_config_strict_ssl",
  "NPM_CONFIG_PROXY",
  "npm_config_proxy",
  "NPM_CONFIG_HTTPS_PROXY",
  "npm_config_https_proxy",
  "NPM_CONFIG_NOPROXY",
  "npm_config_noproxy",
  "NPM_CONFIG_USERCONFIG",
  "npm_config_userconfig",
  "NPM_CONFIG_GLOBALCONFIG",
  "npm_config_globalconfig",
  "PIP_INDEX_URL",
  "PIP_EXTRA_INDEX_URL",
  "PIP_CERT",
  "PIP_CONFIG_FILE",
  "UV_INDEX",
  "UV_INDEX_URL",
  "UV_DEFAULT_INDEX",
  "UV_EXTRA_INDEX_URL",
  "UV_INDEX_STRATEGY",
  "UV_NATIVE_TLS",
];

// "http://user:secret@proxy:3128", "https://token@registry/": a credential in a URL.
const URL_USERINFO = /:\/\/[^/?#\s]*@/;

/** The variables a stdio server takes from contractpin's environment, as they are there. */
export function inheritedEnv(
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of INHERITED_ENV) {
    const value = env[name];
    if (value !== undefined) out[name] = value;
  }
  for (const name of RUNNER_ENV) {
    const value = env[name];
    if (value !== undefined && value !== "" && !URL_USERINFO.test(value)) out[name] = value;
  }
  return out;
}

/**
 * What a stdio server is started with: its argv, env and cwd with every
 * `${VAR}` expanded, and only INHERITED_ENV and RUNNER_ENV taken from
 * contractpin's own environment. verify and the guard start servers by these same rules.
 *
 * @throws ContractpinError ENV_UNSET for a reference to an unset or empty variable.
 */
export function stdioSpawnSpec(
  source: StdioSource,
  ctx: Pick<ReadContext, "env" | "lockDir">,
): SpawnSpec {
  const where = (what: string) => `${what} of the command`;
  const argv = source.command.map((arg, i) =>
    expandReferences(arg, ctx.env, where(`argument ${i}`)),
  );
  const env = inheritedEnv(ctx.env);
  for (const [name, value] of Object.entries(source.env ?? {}))
    env[name] = expandReferences(value, ctx.env, `env ${name}`);
  const cwd = resolve(ctx.lockDir, source.cwd ?? ".");
  return { command: argv[0]!, args: argv.slice(1), env, cwd };
}
