import { existsSync } from "node:fs";
import { dirname, join, relative } from "node:path";

/** The lock's file name when --lock is not given. */
export const LOCK_NAME = "contractpin.lock";

/**
 * The lock a command uses when no --lock is given, as a path relative to
 * `cwd`: contractpin.lock in `cwd`, else in the nearest directory above it
 * up to the root of the git repository `cwd` is in (as git and npm look for
 * their files). Outside a repository, and when no directory up to its root
 * holds one, it is contractpin.lock in `cwd`, where add and init create it.
 * The search never leaves the repository: a lock of an enclosing project or
 * of the temp directory is not this project's.
 */
export function findLock(cwd: string): string {
  const candidates: string[] = [];
  for (let dir = cwd; ; dir = dirname(dir)) {
    candidates.push(join(dir, LOCK_NAME));
    if (existsSync(join(dir, ".git"))) break;
    // The file system's root, and not inside a repository: only cwd counts.
    if (dirname(dir) === dir) return LOCK_NAME;
  }
  const found = candidates.find((path) => existsSync(path));
  return found === undefined ? LOCK_NAME : relative(cwd, found) || LOCK_NAME;
}
