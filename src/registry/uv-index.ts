import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { SpawnSpec } from "../sources/live/spawn-server.js";
import { registryFail } from "./fetch-failure.js";
import { readNetrc } from "./netrc.js";
import { optionValues, truthy } from "./option-values.js";
import type { IndexPlan } from "./pypi.js";
import { tomlParser } from "../config/parsers.js";

/**
 * The indexes `uvx` / `uv tool run` asks, as uv documents it ("Package
 * indexes", "Configuration files", "Environment variables"): its own options
 * first, then its environment variables (an option given makes uv ignore the
 * variable of the same setting), then the user's and the system's `uv.toml`
 * (a tool command reads no project configuration). Indexes named with
 * `--index`/`UV_INDEX`/`[[index]]` and `--extra-index-url` come before the
 * default one (`--default-index`, `--index-url`, a `default = true` index,
 * else https://pypi.org/simple); uv's default `first-index` strategy takes
 * the first that has the package. What contractpin cannot ask as uv would
 * (a keyring, `--find-links`, `--no-index`, a file index) is refused.
 */

const PYPI = "https://pypi.org/simple";
type Toml = Record<string, unknown>;

const notChecked = registryFail();

function readToml(path: string, required: boolean): Toml | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    if (!required && (err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw notChecked(
      `cannot read uv's configuration ${path} (${(err as NodeJS.ErrnoException).code ?? "error"})`,
    );
  }
  try {
    return tomlParser().parse(text) as Toml;
  } catch {
    throw notChecked(`uv's configuration ${path} is not valid TOML`);
  }
}

/** uv's configuration files for a tool command, highest first. */
function configFiles(spawn: SpawnSpec, options: readonly string[], home: string): Toml[] {
  const env = spawn.env;
  if (options.includes("--no-config") || truthy(env["UV_NO_CONFIG"])) return [];
  const explicit = optionValues(options, "--config-file").at(-1) ?? env["UV_CONFIG_FILE"];
  if (explicit) return [readToml(join(spawn.cwd, explicit), true)!];
  const user = join(env["XDG_CONFIG_HOME"] || join(home, ".config"), "uv", "uv.toml");
  const systemDirs = (env["XDG_CONFIG_DIRS"] || "/etc/xdg").split(":").filter((d) => d !== "");
  const system = [...systemDirs.map((d) => join(d, "uv", "uv.toml")), "/etc/uv/uv.toml"]
    .map((p) => readToml(p, false))
    .find((t) => t !== undefined);
  return [readToml(user, false), system].filter((t): t is Toml => t !== undefined);
}

function strings(value: unknown, where: string): string[] {
  if (value === undefined) return [];
  if (typeof value === "string") return [value];
  if (Array.isArray(value) && value.every((v) => typeof v === "string")) return value;
  throw notChecked(`uv's configuration has a '${where}' contractpin cannot read`);
}

/** An index URL with the credential uv takes from UV_INDEX_{NAME}_USERNAME / _PASSWORD, if any. */
function withNamedCredential(
  url: string,
  name: string | undefined,
  env: Record<string, string>,
): string {
  if (name === undefined) return url;
  const key = `UV_INDEX_${name.toUpperCase().replace(/[^A-Z0-9]/g, "_")}`;
  const user = env[`${key}_USERNAME`];
  const password = env[`${key}_PASSWORD`];
  if (user === undefined && password === undefined) return url;
  try {
    const u = new URL(url);
    u.username = encodeURIComponent(user ?? "");
    u.password = encodeURIComponent(password ?? "");
    return u.href;
  } catch {
    return url;
  }
}

/** `name=URL` (uv's named index on the command line or in UV_INDEX), or a plain URL. */
function namedIndex(value: string): { url: string; name?: string } {
  const m = /^([A-Za-z0-9_.-]+)=(.+)$/s.exec(value);
  return m === null ? { url: value } : { name: m[1]!, url: m[2]! };
}

/** The index plan uv would follow for a tool command with these runner options and this environment. */
export function uvIndexPlan(spawn: SpawnSpec, options: readonly string[], home: string): IndexPlan {
  const env = spawn.env;
  const configs = configFiles(spawn, options, home);
  const setting = (key: string): unknown => configs.find((c) => c[key] !== undefined)?.[key];
  const cli = (names: string[], variable: string, split: boolean): string[] => {
    const given = optionValues(options, ...names);
    if (given.length > 0) return given;
    const value = env[variable];
    return value ? (split ? value.split(/\s+/).filter((v) => v !== "") : [value]) : [];
  };

  const keyring =
    cli(["--keyring-provider"], "UV_KEYRING_PROVIDER", false).at(-1) ?? setting("keyring-provider");
  if (keyring !== undefined && keyring !== "disabled") {
    throw notChecked(
      `uv asks a keyring for index credentials (keyring-provider ${String(keyring)}), which contractpin cannot`,
    );
  }
  if (
    options.includes("--no-index") ||
    truthy(env["UV_NO_INDEX"]) ||
    setting("no-index") === true
  ) {
    throw notChecked("uv is told to use no index (--no-index)");
  }
  if (
    cli(["--find-links", "-f"], "UV_FIND_LINKS", true).length > 0 ||
    strings(setting("find-links"), "find-links").length > 0
  ) {
    throw notChecked(
      "uv also takes packages from --find-links locations, which contractpin does not read",
    );
  }
  const strategy =
    cli(["--index-strategy"], "UV_INDEX_STRATEGY", false).at(-1) ??
    setting("index-strategy") ??
    "first-index";
  if (!["first-index", "unsafe-first-match", "unsafe-best-match"].includes(String(strategy))) {
    throw notChecked(`uv's index strategy '${String(strategy)}' is not one contractpin knows`);
  }

  // Indexes before the default, highest first: options (or variables), then each config file's.
  const ranked: string[] = [
    ...cli(["--index"], "UV_INDEX", true)
      .map((v) => namedIndex(v))
      .map((i) => withNamedCredential(i.url, i.name, env)),
    ...cli(["--extra-index-url"], "UV_EXTRA_INDEX_URL", true),
  ];
  let configDefault: string | undefined;
  for (const config of configs) {
    const tables = config["index"] ?? [];
    if (!Array.isArray(tables))
      throw notChecked("uv's configuration has an 'index' that is not a list of tables");
    for (const table of tables as Toml[]) {
      if (typeof table["url"] !== "string")
        throw notChecked("uv's configuration has an [[index]] without a url");
      if (table["explicit"] === true) continue; // used only for the packages pinned to it in a project
      const url = withNamedCredential(
        table["url"],
        typeof table["name"] === "string" ? table["name"] : undefined,
        env,
      );
      if (table["default"] === true) configDefault ??= url;
      else ranked.push(url);
    }
    ranked.push(...strings(config["extra-index-url"], "extra-index-url"));
  }
  const defaultIndex =
    cli(["--default-index"], "UV_DEFAULT_INDEX", false).at(-1) ??
    cli(["--index-url", "-i"], "UV_INDEX_URL", false).at(-1) ??
    configDefault ??
    strings(setting("index-url"), "index-url")[0] ??
    PYPI;
  const indexes = [...new Set([...ranked, defaultIndex])];
  for (const index of indexes) {
    if (!/^https?:\/\//i.test(index))
      throw notChecked(
        "uv is told to use an index that is not an http(s) URL (a local folder?), which contractpin does not read",
      );
  }
  const netrc = readNetrc(env, home);
  const prerelease = cli(["--prerelease"], "UV_PRERELEASE", false).at(-1) ?? setting("prerelease");
  return {
    indexes,
    strategy: strategy === "unsafe-best-match" ? "all" : "first",
    ...(prerelease === "allow" ? { pre: true } : {}),
    ...(netrc === undefined ? {} : { netrc }),
  };
}
