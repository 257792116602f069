// npx installs a package into its own folder of npm's cache,
// <cache>/_npx/<hash>, and writes that folder's package.json last. A first
// download cut short (a timeout, Ctrl-C) can leave the folder without it, and
// then every later npx of that package fails with "Could not read
// package.json" until the folder is removed. A read never leaves the cache
// worse than it found it: a folder this read's npx created and did not finish
// is removed once the server is ended, and one found broken is named with the
// way out.
import { createHash } from "node:crypto";
import { existsSync, rmSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { npxPackages } from "../../core/source/package-runner.js";
import { shellWord } from "../../core/source/shell-word.js";
import { pause } from "../../io/timers.js";
import type { SpawnSpec } from "./spawn-server.js";

/** npx's install folder of a server's packages, and whether it existed before the read. */
export interface NpxFolder {
  dir: string;
  existed: boolean;
}

/**
 * The folder npx installs `spec`'s packages into, as npm names it (the first
 * 16 hex digits of the SHA-512 of the specs, sorted and joined by newlines),
 * in the cache its environment names (npm_config_cache, else ~/.npm); or
 * undefined when the server is not run through npx or npm exec.
 */
export function npxFolder(spec: SpawnSpec): NpxFolder | undefined {
  const packages = npxPackages([spec.command, ...spec.args]);
  if (packages === undefined) return undefined;
  const env = spec.env;
  const cache =
    env["npm_config_cache"] || env["NPM_CONFIG_CACHE"] || join(env["HOME"] || homedir(), ".npm");
  const hash = createHash("sha512")
    .update([...packages].sort((a, b) => a.localeCompare(b, "en")).join("\n"))
    .digest("hex")
    .slice(0, 16);
  const dir = join(resolve(spec.cwd ?? ".", cache), "_npx", hash);
  return { dir, existed: existsSync(dir) };
}

/** Whether npx's folder is there without its package.json: a download that did not finish. */
function unfinished(dir: string): boolean {
  return existsSync(dir) && !existsSync(join(dir, "package.json"));
}

/**
 * Whether an npx is at work in the folder: npm holds a lock folder in it
 * while installing and touches it every second; one untouched for longer is
 * the lock of an npx that was killed before it could release it.
 */
async function lockedByAnother(dir: string): Promise<boolean> {
  const lock = join(dir, "concurrency.lock");
  const touched = () => {
    try {
      return statSync(lock).mtimeMs;
    } catch {
      return undefined;
    }
  };
  const first = touched();
  if (first === undefined) return false;
  await pause(LOCK_STALE_MS);
  return touched() !== first;
}

/** Longer than npm's 1 s between touches of a held lock. */
const LOCK_STALE_MS = 2500;

/**
 * After a read that failed, once its npx has ended: a folder this read's npx
 * created and left unfinished is removed, so the cache is as it was (returns
 * the note that says so); a folder that was broken before the read is named
 * with the command that removes it. A folder another npx is installing into
 * is left alone.
 */
export async function mendNpxFolder(folder: NpxFolder): Promise<string | undefined> {
  if (!unfinished(folder.dir) || (await lockedByAnother(folder.dir))) return undefined;
  if (!folder.existed) {
    try {
      rmSync(folder.dir, { recursive: true, force: true });
      return `npx's unfinished download in ${folder.dir} was removed, so its cache is as it was`;
    } catch {
      // Left as it is: named below with the way out.
    }
  }
  return `npx's cache folder ${folder.dir} is incomplete (an earlier download was cut short; every npx of this package fails until it is removed): remove it with rm -rf ${shellWord(folder.dir)} and run again`;
}
