/**
 * Servers launched through a package runner (`npx -y pkg`, `uvx pkg`,
 * `docker run image`) run whatever version is newest when they start. The lock
 * pins what a server says, not its code, so this is not a failure; but the
 * user should know, and know how to pin the version.
 */

/** Which registry a runner takes its packages from: npm, a Python index (uvx, pipx) or an image registry. */
export type Ecosystem = "npm" | "python" | "pipx" | "docker";

interface Runner {
  ecosystem: Ecosystem;
  /** How the runner was invoked (`npx`, `pnpm dlx`), for the message. */
  invocation: string;
  /** The arguments after the invocation. */
  rest: string[];
}

// Options of each runner that take a separate value, so that the value is not
// mistaken for the package. Unknown options are assumed to take none.
// examples/renovate.json lists the same (tests/config/renovate-recipe.test.ts).
// prettier-ignore
export const VALUE_OPTIONS: Readonly<Record<Ecosystem, ReadonlySet<string>>> = {
  npm: new Set(["-c", "--call", "-w", "--workspace", "--registry", "--cache", "--userconfig"]),
  python: new Set([
    "-p", "--python", "-w", "--with", "--with-editable", "--with-requirements",
    "-c", "--constraints", "--index", "-i", "--index-url", "--default-index", "--extra-index-url",
    "-f", "--find-links", "--directory", "--project", "--env-file", "--cache-dir",
    "--index-strategy", "--keyring-provider", "--config-file", "--prerelease",
  ]),
  pipx: new Set(["--python", "--pip-args", "--index-url"]),
  docker: new Set([
    "-a", "--attach", "--add-host", "--cap-add", "--cap-drop", "--cidfile", "--cpus",
    "--device", "--dns", "-e", "--env", "--env-file", "--entrypoint", "--expose", "-h",
    "--hostname", "-l", "--label", "--log-driver", "--log-opt", "-m", "--memory", "--mount",
    "--name", "--network", "--net", "-p", "--publish", "--platform", "--pull", "--restart",
    "--security-opt", "--shm-size", "--tmpfs", "-u", "--user", "--ulimit", "-v", "--volume",
    "--volumes-from", "-w", "--workdir", "--gpus", "--ipc", "--pid", "--runtime",
  ]),
};

// Options whose value is the package to run (`npx --package pkg`, `uvx --from pkg`).
const PACKAGE_OPTIONS: Record<Ecosystem, Set<string>> = {
  npm: new Set(["-p", "--package"]),
  python: new Set(["--from"]),
  pipx: new Set(["--spec"]),
  docker: new Set(),
};

/**
 * npx's and `npm exec`'s options that forbid an install. The command then
 * runs only what is already there (the project's node_modules, a global
 * install, a copy in npx's cache that is still the registry's current
 * version) and otherwise fails to start: no start fetches new code.
 */
const NO_INSTALL: ReadonlySet<string> = new Set([
  "--no",
  "--no-install",
  "--no-yes",
  "--yes=false",
]);
/** The options that allow one (npm takes the last of the two kinds given). */
const YES_INSTALL: ReadonlySet<string> = new Set(["-y", "--yes", "--yes=true"]);

function findRunner(command: string[]): Runner | undefined {
  const exe = (command[0] ?? "")
    .split(/[\\/]/)
    .pop()!
    .toLowerCase()
    .replace(/\.(cmd|exe|bat|ps1)$/, "");
  const [, first, second] = command;
  const runner = (ecosystem: Ecosystem, words: number): Runner => ({
    ecosystem,
    invocation: command.slice(0, words).join(" "),
    rest: command.slice(words),
  });
  if (exe === "npx" || exe === "pnpx" || exe === "bunx") return runner("npm", 1);
  if (exe === "npm" && (first === "exec" || first === "x")) return runner("npm", 2);
  if ((exe === "pnpm" || exe === "yarn") && first === "dlx") return runner("npm", 2);
  if (exe === "bun" && first === "x") return runner("npm", 2);
  if (exe === "uvx") return runner("python", 1);
  if (exe === "uv" && first === "tool" && second === "run") return runner("python", 3);
  if (exe === "pipx" && first === "run") return runner("pipx", 2);
  if ((exe === "docker" || exe === "podman") && first === "run") return runner("docker", 2);
  return undefined;
}

/** One package spec on a runner's command line, and where it is. */
interface SpecAt {
  spec: string;
  /** The index in `rest` of the argument that holds it (whole, or after `--opt=`). */
  index: number;
}

/**
 * The options a package runner takes for itself, with their values, before
 * what it runs (`uvx --index URL pkg@1 --flag` gives `--index URL`;
 * `pipx run --spec pkg==1 --index-url URL app` gives everything before
 * `app`), or [] when the command is not a package runner.
 */
export function runnerOptions(command: readonly string[]): string[] {
  const runner = findRunner([...command]);
  return runner === undefined ? [] : ownOptions(runner);
}

function ownOptions({ ecosystem, rest }: Runner): string[] {
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    if (arg === "--" || !arg.startsWith("-")) return rest.slice(0, i);
    if (
      !arg.includes("=") &&
      (VALUE_OPTIONS[ecosystem].has(arg) || PACKAGE_OPTIONS[ecosystem].has(arg))
    )
      i++;
  }
  return [...rest];
}

/**
 * Every package spec npx (or `npm exec`) is asked to install, as written
 * (`--package a --package b`, else the command's package), or undefined when
 * the command is not one of them.
 */
export function npxPackages(command: readonly string[]): string[] | undefined {
  const runner = findRunner([...command]);
  if (runner === undefined || !isNpmExec(runner)) return undefined;
  const specs = packageSpecs(runner).map((s) => s.spec);
  return specs.length === 0 ? undefined : specs;
}

/** True for npx and `npm exec` (`npm x`), not for the other npm-registry runners. */
function isNpmExec(runner: Runner): boolean {
  const words = runner.invocation.split(" ");
  const exe = words[0]!
    .split(/[\\/]/)
    .pop()!
    .toLowerCase()
    .replace(/\.(cmd|exe)$/, "");
  return exe === "npx" || (exe === "npm" && words.length === 2);
}

/** True when npx or `npm exec` is told not to install (`--no`): it runs only what is installed. */
function installsNothing(runner: Runner): boolean {
  if (!isNpmExec(runner)) return false;
  let installs = true;
  for (const option of ownOptions(runner)) {
    if (NO_INSTALL.has(option)) installs = false;
    else if (YES_INSTALL.has(option)) installs = true;
  }
  return !installs;
}

/** The package (or image) specs a runner is asked to run. */
function packageSpecs({ ecosystem, rest }: Runner): SpecAt[] {
  const named: SpecAt[] = [];
  let positional: SpecAt | undefined;
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    const eq = /^(--?[^=]+)=(.*)$/s.exec(arg);
    if (arg === "--") {
      if (i + 1 < rest.length) positional = { spec: rest[i + 1]!, index: i + 1 };
      break;
    } else if (eq) {
      if (PACKAGE_OPTIONS[ecosystem].has(eq[1]!)) named.push({ spec: eq[2]!, index: i });
    } else if (PACKAGE_OPTIONS[ecosystem].has(arg)) {
      i++;
      named.push({ spec: rest[i] ?? "", index: i });
    } else if (VALUE_OPTIONS[ecosystem].has(arg)) {
      i++;
    } else if (!arg.startsWith("-")) {
      positional = { spec: arg, index: i };
      break;
    }
  }
  if (named.length > 0) return named;
  return positional === undefined ? [] : [positional];
}

const EXACT_VERSION = /^v?\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]*)?$/;

/** Why an npm spec is not pinned, or undefined when it is (or is not from the registry). */
function npmDrift(spec: string): string | undefined {
  if (/^[./~]|:/.test(spec)) return undefined; // a path, URL, git or alias spec: not a registry version
  const at = spec.indexOf("@", spec.startsWith("@") ? 1 : 0);
  if (at < 0) return "no version";
  const version = spec.slice(at + 1);
  return EXACT_VERSION.test(version) ? undefined : `version '${version}' is not an exact one`;
}

function pythonDrift(spec: string): string | undefined {
  if (/^[./~]|:\/\//.test(spec) || spec.startsWith("git+")) return undefined;
  const pinned = /===?\s*\d[^,;*]*$/.exec(spec) ?? /@\d[\w.+-]*$/.exec(spec);
  if (pinned) return undefined;
  return /@latest$/.test(spec) ? "version 'latest'" : "no exact version";
}

function dockerDrift(image: string): string | undefined {
  if (image.includes("@sha256:")) return undefined;
  const last = image.split("/").pop()!;
  const colon = last.indexOf(":");
  if (colon < 0) return "no tag, which means 'latest'";
  return last.slice(colon + 1) === "latest" ? "tag 'latest'" : undefined;
}

function baseName(spec: string, ecosystem: Ecosystem): string {
  if (ecosystem === "docker") return spec.replace(/:[^/:]*$/, "");
  if (ecosystem === "npm") return spec.replace(/(?!^)@.*$/, "");
  return spec.replace(/(\[.*\])?\s*(==|>=|<=|~=|!=|<|>|@).*$/, "$1");
}

function example(runner: Runner, spec: string): string {
  const name = baseName(spec, runner.ecosystem);
  switch (runner.ecosystem) {
    case "npm":
      return `${runner.invocation}${runner.rest.some((a) => a === "-y" || a === "--yes") ? " -y" : ""} ${name}@1.2.3`;
    case "python":
      // uvx's own `pkg@1.2.3` rather than `pkg==1.2.3`: the lock's secret heuristics
      // (src/core/source/secrets.ts) can take a long `name==version` argument for a token.
      return `${runner.invocation} ${name}@1.2.3`;
    case "pipx":
      return `pipx run --spec ${name}==1.2.3 ${name}`;
    case "docker":
      return `${runner.invocation} ${name}:1.2.3 (or ${name}@sha256:…)`;
  }
}

/**
 * A warning when a stdio server's command runs a package or image without a
 * pinned version: npx, pnpm dlx, yarn dlx, bunx and npm exec without an exact
 * `@version` (or with `@latest`); uvx, uv tool run and pipx run without
 * `==version` (uvx also takes `@version`); docker and podman run with an image
 * that has no tag or `:latest`, and no `@sha256:` digest. None for npx or
 * npm exec told not to install (`--no`): it runs what is installed.
 *
 * @param label who the warning is about, e.g. `.mcp.json: server github`.
 * @returns the warning, or undefined when the command is pinned or is not a package runner.
 */
export function packageRunnerWarning(label: string, command: string[]): string | undefined {
  const runner = findRunner(command);
  if (runner === undefined || installsNothing(runner)) return undefined;
  for (const { spec } of packageSpecs(runner)) {
    const drift =
      runner.ecosystem === "npm"
        ? npmDrift(spec)
        : runner.ecosystem === "docker"
          ? dockerDrift(spec)
          : pythonDrift(spec);
    if (drift === undefined) continue;
    // The message names the package, never the whole command, whose other arguments may hold a secret.
    return (
      `${label}: ${spec}, run through ${runner.invocation}, is not pinned (${drift}): each start ` +
      "runs whatever version is newest then. " +
      "Package drift is outside the contract: contractpin pins what the server says, not its code. " +
      `To run the same code every time, pin the version, e.g. '${example(runner, spec)}'.`
    );
  }
  return undefined;
}

/** A pinned Python spec's separator (`==`, `===`, `@`) and version, at its end. */
const PYTHON_PIN = /(===?\s*|@)(\d[^,;*]*)$/;

/** A package a stdio server's command runs through a package runner. */
export interface RunnerPackage {
  ecosystem: Ecosystem;
  /** How the runner was invoked (`npx`, `pnpm dlx`). */
  invocation: string;
  /** The spec as written (`pkg@1.2.3`, `pkg==1.2.3`, `image:tag`). */
  spec: string;
  /** The package or image name, without its version. */
  name: string;
  /** The exact version pinned, or undefined when the spec pins none (or not exactly). */
  version?: string;
  /** The index in the command of the argument holding the spec. */
  argIndex: number;
  /** The registry the runner is told to use (`--registry URL`), if any. */
  registry?: string;
  /**
   * Run with no exact version by npx or `npm exec` told not to install
   * (`--no`): what runs is what is installed, whose version the project's
   * own lockfile (or whoever installed it) pins, never a registry's newest.
   */
  installed?: true;
}

/**
 * The package a command runs through a package runner (the first one named),
 * or undefined when the command is not a package runner or its package is a
 * path, URL or git spec (no registry version to compare).
 */
export function runnerPackage(command: readonly string[]): RunnerPackage | undefined {
  const runner = findRunner([...command]);
  if (runner === undefined) return undefined;
  const found = packageSpecs(runner)[0];
  if (found === undefined) return undefined;
  const { spec } = found;
  const offset = command.length - runner.rest.length;
  const registry = optionValue(runner.rest, "--registry");
  const base = {
    ecosystem: runner.ecosystem,
    invocation: runner.invocation,
    spec,
    argIndex: offset + found.index,
    ...(registry === undefined ? {} : { registry }),
  };
  const name = baseName(spec, runner.ecosystem);
  switch (runner.ecosystem) {
    case "npm": {
      if (/^[./~]|:/.test(spec)) return undefined;
      if (npmDrift(spec) === undefined)
        return { ...base, name, version: spec.slice(name.length + 1) };
      return { ...base, name, ...(installsNothing(runner) ? { installed: true as const } : {}) };
    }
    case "docker": {
      if (dockerDrift(spec) !== undefined) return { ...base, name };
      // `image:tag@sha256:…` runs the digest: the name is the image's, without tag or digest.
      if (spec.includes("@sha256:"))
        return { ...base, name: baseName(spec.replace(/@sha256:.*$/, ""), "docker") };
      return { ...base, name, version: spec.slice(name.length + 1) };
    }
    default: {
      if (/^[./~]|:\/\//.test(spec) || spec.startsWith("git+")) return undefined;
      if (pythonDrift(spec) !== undefined) return { ...base, name };
      const version = PYTHON_PIN.exec(spec)![2]!;
      return { ...base, name, version };
    }
  }
}

/** The value of `--opt VALUE` or `--opt=VALUE` among the runner's own options. */
function optionValue(rest: readonly string[], option: string): string | undefined {
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    if (arg === option) return rest[i + 1];
    if (arg.startsWith(`${option}=`)) return arg.slice(option.length + 1);
    if (arg === "--" || !arg.startsWith("-")) break;
  }
  return undefined;
}

/**
 * The command with the package's version replaced by `version`, every other
 * argument as it was (`npx -y pkg@1.0.0 --flag` becomes `npx -y pkg@2.0.0 --flag`).
 */
export function withVersion(
  command: readonly string[],
  pkg: RunnerPackage,
  version: string,
): string[] {
  const arg = command[pkg.argIndex]!;
  let spec: string;
  if (pkg.ecosystem === "docker" || pkg.ecosystem === "npm") {
    spec = `${pkg.name}${pkg.ecosystem === "docker" ? ":" : "@"}${version}`;
  } else {
    // A Python spec keeps the separator it was written with (`pkg@1.0`, `pkg==1.0`, `pkg === 1.0`).
    // Unpinned, uvx's own `pkg@1.0` (a long `name==version` can pass for a token, src/core/source/secrets.ts).
    const pinned = PYTHON_PIN.exec(pkg.spec);
    spec =
      pinned === null
        ? `${pkg.name}${pkg.ecosystem === "python" ? "@" : "=="}${version}`
        : `${pkg.spec.slice(0, pinned.index)}${pinned[1]}${version}`;
  }
  const next = [...command];
  next[pkg.argIndex] = arg.slice(0, arg.length - pkg.spec.length) + spec;
  return next;
}
