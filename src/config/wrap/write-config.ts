import { randomBytes } from "node:crypto";
import {
  closeSync,
  existsSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { ContractpinError } from "../../core/errors.js";
import { writeFileAtomic } from "../../io/atomic-write.js";
import { reason } from "../../io/read-input.js";

/** The folder, beside a config, that holds its one backup; it ignores itself for git. */
export const BACKUP_FOLDER = ".contractpin-backup";

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/**
 * Keeps one copy of `bytes` (the config as it was read), as
 * `.contractpin-backup/NAME` in the config's own folder: beside the real file,
 * so a user-level config's backup never lands in a working tree. The folder
 * holds a `.gitignore` of `*`, so git ignores it whole (backups hold secrets,
 * and must not show as untracked files). The copy replaces the one before,
 * so repeated wraps and unwraps leave one file; it gets the config's
 * permissions. Nothing is written through a symbolic link: a folder that is
 * one is refused, and a link in the backup's place is replaced, not followed.
 *
 * @param file the config's real path.
 * @returns the backup's path.
 */
function backup(file: string, bytes: Uint8Array): string {
  const mode = statSync(file).mode & 0o777;
  const dir = join(dirname(file), BACKUP_FOLDER);
  const target = join(dir, basename(file));
  const fail = (why: string, cause?: unknown) =>
    new ContractpinError(
      "CONFIG_CHANGED",
      `${file}: cannot write the backup ${target}: ${why}; nothing was written`,
      cause === undefined ? undefined : { cause },
    );
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code !== "EEXIST") throw fail(reason(cause), cause);
  }
  const folder = lstatSync(dir);
  if (folder.isSymbolicLink() || !folder.isDirectory()) {
    throw fail(
      `${dir} is not a folder (a symbolic link?), and contractpin does not write through one`,
    );
  }
  try {
    // A .gitignore a repository committed there with other content is replaced too.
    replace(join(dir, ".gitignore"), Buffer.from(IGNORE_ALL), 0o644);
    replace(target, bytes, mode);
  } catch (cause) {
    throw fail(reason(cause), cause);
  }
  return target;
}

const IGNORE_ALL = "# contractpin's backups of client configs (they may hold secrets)\n*\n";

/**
 * Makes `file` a regular file holding `data`: left alone when it already is,
 * else written beside it and renamed over it, which replaces a symbolic link
 * there and never follows it.
 */
function replace(file: string, data: Uint8Array, mode: number): void {
  let now: ReturnType<typeof lstatSync> | undefined;
  try {
    now = lstatSync(file);
  } catch {
    now = undefined;
  }
  if (now?.isFile() === true && sameBytes(readFileSync(file), data)) return;
  const temp = join(
    dirname(file),
    `.${basename(file)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`,
  );
  try {
    writeNew(temp, data, mode);
    renameSync(temp, file);
  } catch (cause) {
    rmSync(temp, { force: true });
    throw cause;
  }
}

/** Writes a new file: never an existing one, nor through a link. */
function writeNew(file: string, data: Uint8Array, mode: number): void {
  const fd = openSync(file, "wx", mode);
  try {
    writeFileSync(fd, data);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Replaces a config file's text, which was `before` when it was read: keeps
 * its one backup first (`.contractpin-backup/NAME` beside it), then writes
 * atomically (src/io/atomic-write.ts), in place of
 * the file a symbolic link points to. A file that changed since it was read
 * (a client rewrote it) is left alone.
 *
 * @returns the backup's path.
 * @throws ContractpinError CONFIG_CHANGED when the file changed meanwhile or
 *   the backup cannot be written; LOCK_WRITE_FAILED when the write fails.
 */
export async function writeConfig(
  file: string,
  before: Uint8Array,
  after: string,
): Promise<string> {
  const now = readFileSync(existsSync(file) ? realpathSync(file) : file);
  if (!sameBytes(now, before)) {
    throw new ContractpinError(
      "CONFIG_CHANGED",
      `${file}: the file changed while contractpin was reading it; nothing was written; run the command again`,
    );
  }
  const kept = backup(existsSync(file) ? realpathSync(file) : file, before);
  await writeFileAtomic(file, after, "the config");
  return kept;
}
