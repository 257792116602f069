import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { SpawnSpec } from "../sources/live/spawn-server.js";
import { registryFail } from "./fetch-failure.js";
import { readNetrc } from "./netrc.js";
import { optionValues, truthy } from "./option-values.js";
import type { IndexPlan } from "./pypi.js";

/**
 * The indexes `pipx run` has pip ask, as pip documents its configuration
 * ("Configuration"): pipx's `--index-url` and the words of `--pip-args` are
 * pip's command line; then `PIP_*` variables; then the configuration files,
 * later ones winning: the global ones ($XDG_CONFIG_DIRS/pip/pip.conf, else
 * /etc/xdg/pip/pip.conf; /etc/pip.conf), the user's (~/.pip/pip.conf, then
 * $XDG_CONFIG_HOME/pip/pip.conf), then PIP_CONFIG_FILE (when it names a file
 * the user's are skipped; /dev/null skips them all); in each, `[install]`
 * over `[global]`. pip asks every index and takes the highest version.
 */

const PYPI = "https://pypi.org/simple";

const notChecked = registryFail();

/** A pip.conf (configparser's format) read into section -> key -> value; undefined when there is no file. */
export function parsePipConf(text: string, path: string): Map<string, Map<string, string>> {
  const sections = new Map<string, Map<string, string>>();
  let section: Map<string, string> | undefined;
  let last: string | undefined;
  for (const [n, raw] of text.split(/\r?\n/).entries()) {
    if (/^\s*([#;]|$)/.test(raw)) continue;
    const head = /^\[([^\]]+)\]\s*$/.exec(raw);
    if (head) {
      section = sections.get(head[1]!) ?? new Map<string, string>();
      sections.set(head[1]!, section);
      last = undefined;
    } else if (/^\s/.test(raw) && section !== undefined && last !== undefined) {
      section.set(last, `${section.get(last)}\n${raw.trim()}`); // a continuation line
    } else {
      const kv = keyValue(raw);
      if (kv === undefined || section === undefined) {
        throw notChecked(`cannot read pip's configuration ${path} (line ${n + 1})`);
      }
      last = kv[0].toLowerCase().replace(/_/g, "-");
      section.set(last, kv[1]);
    }
  }
  return sections;
}

/**
 * `key = value` (or `key: value`): the key is what comes before the first `=`
 * or `:`, blanks after it dropped, and starts with neither a blank nor the
 * delimiter; the value is the rest, trimmed, holding no line break. By indexOf and
 * trims, not a lazy pattern, which a long line of blanks makes quadratic.
 */
function keyValue(raw: string): [string, string] | undefined {
  const eq = raw.indexOf("=");
  const colon = raw.indexOf(":");
  const at = eq < 0 ? colon : colon < 0 ? eq : Math.min(eq, colon);
  if (at <= 0 || raw[0]!.trim() === "") return undefined;
  const value = raw.slice(at + 1).trimStart();
  if (/[\n\r\u2028\u2029]/.test(value)) return undefined;
  return [raw.slice(0, at).trimEnd(), value.trimEnd()];
}

function readConf(path: string): Map<string, Map<string, string>> | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw notChecked(
      `cannot read pip's configuration ${path} (${(err as NodeJS.ErrnoException).code ?? "error"})`,
    );
  }
  return parsePipConf(text, path);
}

/** pip's settings from its configuration files, later files and [install] winning. */
function fileSettings(
  env: Record<string, string>,
  home: string,
  isolated: boolean,
): Map<string, string> {
  const configFile = env["PIP_CONFIG_FILE"];
  if (configFile === "/dev/null") return new Map();
  const dirs = (env["XDG_CONFIG_DIRS"] || "/etc/xdg").split(":").filter((d) => d !== "");
  const paths = [...dirs.map((d) => join(d, "pip", "pip.conf")), "/etc/pip.conf"];
  const explicit = configFile ? readConf(configFile) : undefined;
  if (!isolated && explicit === undefined) {
    paths.push(
      join(home, ".pip", "pip.conf"),
      join(env["XDG_CONFIG_HOME"] || join(home, ".config"), "pip", "pip.conf"),
    );
  }
  const settings = new Map<string, string>();
  const files = paths.map(readConf);
  if (explicit !== undefined) files.push(explicit);
  for (const file of files) {
    for (const section of ["global", "install"]) {
      for (const [key, value] of file?.get(section) ?? []) settings.set(key, value);
    }
  }
  return settings;
}

/** pip's words of a `--pip-args` value: split on blanks; quoting is refused (never guessed). */
function pipArgWords(value: string): string[] {
  if (/["'\\]/.test(value))
    throw notChecked("pipx's --pip-args holds quoting contractpin does not split");
  return value.split(/\s+/).filter((w) => w !== "");
}

/** The index plan pip would follow when `pipx run` installs the package. */
export function pipIndexPlan(
  spawn: SpawnSpec,
  runnerOptions: readonly string[],
  home: string,
): IndexPlan {
  const pipArgs = [
    ...optionValues(runnerOptions, "--index-url").flatMap((u) => ["--index-url", u]),
    ...optionValues(runnerOptions, "--pip-args").flatMap(pipArgWords),
  ];
  const isolated = pipArgs.includes("--isolated") || truthy(spawn.env["PIP_ISOLATED"]);
  const env = isolated ? {} : spawn.env;
  const conf = fileSettings(spawn.env, home, isolated);
  const setting = (key: string): string | undefined =>
    env[`PIP_${key.toUpperCase().replace(/-/g, "_")}`] ?? conf.get(key);
  const list = (v: string | undefined) => (v ?? "").split(/\s+/).filter((w) => w !== "");

  if (pipArgs.includes("--no-index") || truthy(setting("no-index"))) {
    throw notChecked("pip is told to use no index (--no-index)");
  }
  if (
    optionValues(pipArgs, "--find-links", "-f").length > 0 ||
    list(setting("find-links")).length > 0
  ) {
    throw notChecked(
      "pip also takes packages from --find-links locations, which contractpin does not read",
    );
  }
  const keyring = optionValues(pipArgs, "--keyring-provider").at(-1) ?? setting("keyring-provider");
  if (keyring !== undefined && keyring !== "disabled" && keyring !== "auto") {
    throw notChecked(
      `pip asks a keyring for index credentials (keyring-provider ${keyring}), which contractpin cannot`,
    );
  }
  const index = optionValues(pipArgs, "--index-url", "-i").at(-1) ?? setting("index-url") ?? PYPI;
  const extras = [
    ...list(setting("extra-index-url")),
    ...optionValues(pipArgs, "--extra-index-url"),
  ];
  const indexes = [...new Set([index, ...extras])];
  if (indexes.some((i) => !/^https?:\/\//i.test(i))) {
    throw notChecked(
      "pip is told to use an index that is not an http(s) URL (a local folder?), which contractpin does not read",
    );
  }
  const netrc = readNetrc(spawn.env, home);
  const pre = pipArgs.includes("--pre") || truthy(setting("pre"));
  return {
    indexes,
    strategy: "all",
    ...(pre ? { pre } : {}),
    ...(netrc === undefined ? {} : { netrc }),
  };
}
