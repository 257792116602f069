// Which config files a project `wrap`, `unwrap` or `upgrade --write` (no
// --user) may rewrite. A
// repository can commit `.cursor/mcp.json` (or `.cursor` itself) as a symbolic
// link to the user's `~/.cursor/mcp.json`: rewriting the real file would make
// every project's client launch a guard of this repository's lock, and put a
// backup of the user's config (with other servers' secrets) in the working
// tree. So each config is resolved to its real file first, and that is the
// file checked, read, written and backed up.
import { realpathSync, statSync } from "node:fs";
import path from "node:path";
import { ContractpinError } from "../../core/errors.js";
import { configLocations } from "../locations.js";

/** What decides whether a config may be rewritten. */
export interface ConfigScope {
  /** The project: the directory the command runs in. */
  projectDir: string;
  /** The user-level configs contractpin knows (discover.ts's "user" locations). */
  userConfigs: readonly string[];
  /** --user was given: user-level configs may be rewritten. */
  user: boolean;
  /** The files were named with --from (rather than discovered). */
  named: boolean;
  /** The command, for the error line. */
  command: string;
  /** The option that names a config file, for the error line (default "--from"). */
  nameFlag?: string;
}

/**
 * The scope of a command that rewrites configs in `projectDir`: the
 * user-level configs of this machine (discover.ts's "user" locations), and
 * whether --user was given.
 */
export function configScope(
  projectDir: string,
  home: string,
  user: boolean,
  command: string,
): Omit<ConfigScope, "named"> {
  const userConfigs = configLocations({
    projectDir,
    home,
    platform: process.platform,
    env: process.env,
  })
    .filter((l) => l.scope === "user")
    .map((l) => l.path);
  return { projectDir, userConfigs, user, command };
}

/**
 * The real file that config path `file` is (every symbolic link in it, file
 * or folder, resolved), refused when a command without --user would rewrite
 * a file outside the project or a user-level config. A file named with
 * --from is rewritten where its name says (a user-level file named as such
 * is meant): only being led out of the project by a link is refused.
 *
 * @returns the real path, or `file` itself when it does not exist (reading it says so).
 * @throws ContractpinError USAGE naming both paths (exit 2).
 */
export function realConfig(file: string, scope: ConfigScope): string {
  let real: string;
  try {
    real = realpathSync(file);
  } catch {
    return file;
  }
  if (scope.user) return real;
  const project = realDir(scope.projectDir);
  const where = userLevel(real, project, scope.userConfigs);
  if (where === undefined) return real;
  const given = path.resolve(file);
  if (scope.named && userLevel(given, scope.projectDir, scope.userConfigs, false) !== undefined) {
    return real;
  }
  const led = real === given ? `${file} is ${where}` : `${file} leads to ${real}, ${where}`;
  const hint = scope.named
    ? `name that file with ${scope.nameFlag ?? "--from"} if you mean to rewrite it`
    : "run with --user if you mean to rewrite it";
  throw new ContractpinError(
    "USAGE",
    `${led}; without --user, ${scope.command} rewrites only the project's configs (the project is ${project}); nothing was written; ${hint}`,
  );
}

/**
 * Why `file` is not a project config: "outside the project", or "a
 * user-level config". Undefined when it is a project config.
 *
 * @param byIdentity also compare files by device and inode (a hard link, a
 *   bind mount); only for `file`'s real path (default true).
 */
function userLevel(
  file: string,
  project: string,
  userConfigs: readonly string[],
  byIdentity = true,
): string | undefined {
  const known = userConfigs.find(
    (u) => path.resolve(u) === file || (byIdentity && sameFile(u, file)),
  );
  if (known !== undefined) return "a user-level config";
  const rel = path.relative(project, file);
  if (rel === "" || rel.startsWith("..") || path.isAbsolute(rel)) return "outside the project";
  return undefined;
}

function realDir(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return path.resolve(dir);
  }
}

function sameFile(a: string, b: string): boolean {
  try {
    const sa = statSync(a);
    const sb = statSync(b);
    return sa.dev === sb.dev && sa.ino === sb.ino;
  } catch {
    return false;
  }
}
