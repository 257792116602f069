import { findOutdated, outdatedExitCode } from "../../engine/outdated.js";
import { readLock } from "../../io/lock-file.js";
import { parseCommandArgs } from "../args.js";
import {
  knownServers,
  LOCK_HELP,
  LOCK_OPTIONS,
  lockPath,
  READ_HELP,
  READ_OPTIONS,
  readContext,
} from "../common.js";
import type { Io } from "../io.js";
import { renderOutdatedJson, renderOutdatedText } from "../render/outdated-text.js";

export const help = `Usage: contractpin outdated [NAME...] [--json] [options]

For each pinned stdio server (or only the named ones) that runs a package
through a package runner, asks its registry for the newest version, the way
the runner will when the server starts, with the env, working directory and
HOME the server gets:
  npx, npm exec, pnpm dlx, yarn dlx, bunx: the registry npm's configuration
    names for the package's scope, and its credential (npm_config_* of the
    server's env entry, the project's, the user's and the global .npmrc, or
    the runner's own --registry);
  uvx, uv tool run: the indexes uv would ask (its options, UV_* variables,
    the user's and system uv.toml; the first index that has the package);
  pipx run: the indexes pip would ask (pipx's --index-url and --pip-args,
    PIP_* variables, pip.conf; every index, the highest version);
  docker run, podman run: the image's registry, resolved as docker resolves
    it (a podman short name is not checked), with the runner's credential
    for it (DOCKER_CONFIG or ~/.docker/config.json; podman's auth.json
    first); the newest tag of the pinned tag's shape (1.2.3, v1.2.3,
    1.2.3-alpine) is the newest.
Python versions are PEP 440's; the newest is the highest final release.
A credential in an index URL, .netrc or a docker config is used, never
shown. What contractpin cannot ask as the runner would (a keyring, a docker
credential helper, --find-links, --no-index, a local index) is said so. All
registries are asked at once.

Prints one line per server: pinned and newer, pinned and newest, or not
pinned (npx -y pkg) with the version that runs now. A registry that cannot be
reached is said so for that server, never "up to date"; so is an image
pinned by digest or by a tag that is no version. Servers reached over HTTP or
read from a dump have no version and are listed as such.

Options:
  --json               print a JSON report ({ exit_code, servers: [...] })
${LOCK_HELP}
${READ_HELP}
  --help               show this help

Exit codes:
  0  nothing pinned has a newer version
  1  a newer version exists, or a registry could not be asked (or not yet)
  2  contractpin could not run: bad arguments, an unknown NAME, a missing or
     corrupt lock

Examples:
  contractpin outdated
  contractpin outdated filesystem --json
  contractpin outdated --lock ci/contractpin.lock --timeout 10
`;

export async function run(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    "outdated",
    args,
    { ...LOCK_OPTIONS, ...READ_OPTIONS, json: { type: "boolean" } },
    Infinity,
  );
  const lockFile = await lockPath(values, io);
  const { ctx, concurrency } = readContext(lockFile, values, io);
  const lock = await readLock(lockFile);
  const names =
    positionals.length > 0 ? [...new Set(positionals)] : Object.keys(lock.servers).sort();
  knownServers(names, lock.servers, lockFile);
  const entries = await findOutdated(names, lock.servers, ctx, concurrency);
  io.signal?.throwIfAborted();
  const exitCode = outdatedExitCode(entries);
  await io.out(
    values.json === true ? renderOutdatedJson(entries, exitCode) : renderOutdatedText(entries),
  );
  return exitCode;
}
