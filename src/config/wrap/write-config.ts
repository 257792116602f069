import {
  closeSync,
  existsSync,
  openSync,
  readFileSync,
  realpathSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { ContractpinError } from "../../core/errors.js";
import { writeFileAtomic } from "../../io/lock-file.js";
import { reason } from "../../io/read-input.js";

/** The suffix of a config's backup: `FILE.contractpin-backup`, then `.1`, `.2`, ... */
export const BACKUP_SUFFIX = ".contractpin-backup";

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/**
 * Keeps a copy of `bytes` (the config as it was read) beside `file`. An
 * existing backup is never overwritten: one with the same bytes serves, else
 * the next free name (`FILE.contractpin-backup.1`, ...) is taken. The copy
 * gets the config's permissions, since a config may hold secrets.
 *
 * @returns the backup's path.
 */
function backup(file: string, bytes: Uint8Array): string {
  const mode = statSync(file).mode & 0o777;
  for (let n = 0; ; n++) {
    const path = `${file}${BACKUP_SUFFIX}${n === 0 ? "" : `.${n}`}`;
    if (existsSync(path)) {
      if (sameBytes(readFileSync(path), bytes)) return path;
      continue;
    }
    let fd: number;
    try {
      fd = openSync(path, "wx", mode);
    } catch (cause) {
      if ((cause as NodeJS.ErrnoException).code === "EEXIST") continue;
      throw new ContractpinError(
        "CONFIG_CHANGED",
        `${file}: cannot write the backup ${path}: ${reason(cause)}; nothing was written`,
        { cause },
      );
    }
    try {
      writeFileSync(fd, bytes);
    } finally {
      closeSync(fd);
    }
    return path;
  }
}

/**
 * Replaces a config file's text, which was `before` when it was read: keeps
 * a backup first, then writes atomically (src/io/lock-file.ts), in place of
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
  const kept = backup(file, before);
  await writeFileAtomic(file, after, "the config");
  return kept;
}
