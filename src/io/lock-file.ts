import {
  closeSync,
  existsSync,
  lstatSync,
  realpathSync,
  statSync,
  fsyncSync,
  openSync,
  renameSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { ContractpinError, isContractpinError } from "../core/errors.js";
import { renderLock, sameContent, validateLock, type Lock } from "../core/lock.js";
import type { JsonValue } from "../core/json-value.js";
import { parseJson } from "../core/strict-json.js";
import { rebaseLock } from "../core/lock-rebase.js";
import { readRegularFile, reason } from "./read-input.js";
import { MAX_LOCK_BYTES } from "../core/limits.js";
import { positionOf } from "../core/text-position.js";
import { withWriteGuard } from "./write-guard.js";

/**
 * Reads and validates the lock at `path`. Every problem is a ContractpinError
 * (exit 2) whose message starts with the path: LOCK_MISSING when there is no
 * file, LOCK_CORRUPT when it does not parse strictly or has the wrong shape.
 */
export async function readLock(path: string): Promise<Lock> {
  let bytes: Uint8Array;
  try {
    // A regular file of bounded size: a lock that is a FIFO or /dev/zero fails at once.
    bytes = readRegularFile(path, MAX_LOCK_BYTES);
  } catch (cause) {
    const errno = (cause as { cause?: NodeJS.ErrnoException }).cause?.code;
    const code = errno === "ENOENT" ? "LOCK_MISSING" : "LOCK_CORRUPT";
    const hint =
      code === "LOCK_MISSING" ? " (create one with 'contractpin init' or 'contractpin add')" : "";
    const why = (cause as { why?: string }).why ?? reason(cause);
    throw new ContractpinError(code, `${path}: cannot read the lock: ${why}${hint}`, { cause });
  }
  return lockFromBytes(path, bytes);
}

/**
 * Parses and validates the bytes of a lock read from `path` (named in every
 * message). Every problem is a ContractpinError LOCK_* (exit 2).
 *
 * @param parsed `bytes` already parsed by the strict parser, when the caller has done so.
 */
export function lockFromBytes(path: string, bytes: Uint8Array, parsed?: JsonValue): Lock {
  try {
    return validateLock(parsed ?? parseJson(bytes));
  } catch (err) {
    if (!isContractpinError(err)) throw err;
    const code = err.code.startsWith("LOCK_") ? err.code : "LOCK_CORRUPT";
    const message = err.code.startsWith("LOCK_")
      ? err.message
      : `lock is corrupt: ${err.message}${positionOf(err.message, bytes)}${conflictHint(bytes)}`;
    throw new ContractpinError(code, `${path}: ${message}`, { cause: err });
  }
}

/** Reads the lock at `path`, or returns undefined when there is none. */
export async function readLockIfExists(path: string): Promise<Lock | undefined> {
  try {
    return await readLock(path);
  } catch (err) {
    if (isContractpinError(err, "LOCK_MISSING")) return undefined;
    throw err;
  }
}

/** The file operations of an atomic write, injectable so a failure mid-write can be tested. */
export interface AtomicWriteOps {
  /** Creates `path` (which must not exist) with `mode`, writes `data`, and flushes it to disk. */
  writeNew(path: string, data: string | Uint8Array, mode: number): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  unlink(path: string): Promise<void>;
  /** Flushes a directory entry change to disk (best effort). */
  syncDir(dir: string): Promise<void>;
}

// Synchronous calls: a CLI has nothing else to do meanwhile, and node:fs is
// loaded already (node:fs/promises would add to every start-up).
const nodeOps: AtomicWriteOps = {
  async writeNew(path, data, mode) {
    const fd = openSync(path, "wx", mode);
    try {
      writeFileSync(fd, data, "utf8");
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  },
  async rename(from, to) {
    renameSync(from, to);
  },
  async unlink(path) {
    unlinkSync(path);
  },
  async syncDir(dir) {
    try {
      const fd = openSync(dir, "r");
      try {
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    } catch {
      // Some systems cannot fsync a directory; the rename itself is still atomic.
    }
  },
};

/**
 * Writes `data` to `path` atomically: a temporary file in the same directory,
 * flushed, then renamed over the target. A crash, a kill or a failed write at
 * any point leaves either the old file or the new one, never a truncated file.
 *
 * @param what the file, for the error message (default "the lock").
 * @param mode the new file's mode (default: the existing file's, else 0644).
 */
export async function writeFileAtomic(
  path: string,
  data: string,
  what = "the lock",
  ops: AtomicWriteOps = nodeOps,
  mode?: number,
): Promise<void> {
  // A lock that is a symbolic link is replaced where it points, keeping its mode.
  const target = existsSync(path) ? realpathSync(path) : path;
  await replaceFile(target, path, data, { what, ops, mode, code: "LOCK_WRITE_FAILED" });
}

/**
 * Writes a report `data` to `path` as {@link writeFileAtomic} writes the lock,
 * but never through a symbolic link, since a report's path may be in a
 * checkout that a pull request controls: `path` itself must not be one, nor
 * any folder of its path below one of `bases` (the current directory, the
 * workspace), where a link could lead the report anywhere the process can write.
 * Folders above the bases are the machine's own (a /tmp that is a link stays usable).
 *
 * @param what the file, for the error message (e.g. "the report").
 * @throws ContractpinError REPORT_WRITE_FAILED (exit 2) for a link, or when the write fails.
 */
export async function writeReportAtomic(
  path: string,
  data: string | Uint8Array,
  what: string,
  bases: readonly string[],
  ops: AtomicWriteOps = nodeOps,
): Promise<void> {
  refuseLinks(path, bases, what);
  // Lexically resolved: `a/../x` is written where it was checked, whatever `a` is.
  await replaceFile(resolve(path), path, data, {
    what,
    ops,
    mode: undefined,
    code: "REPORT_WRITE_FAILED",
  });
}

/**
 * Refuses `path` when it, or a folder of its path below one of `bases`, is a
 * symbolic link (see {@link writeReportAtomic}).
 *
 * @throws ContractpinError REPORT_WRITE_FAILED naming the link.
 */
export function refuseLinks(path: string, bases: readonly string[], what: string): void {
  const target = resolve(path);
  const checked = [target];
  for (const base of bases.map((b) => resolve(b))) {
    const rel = relative(base, dirname(target));
    if (rel.startsWith("..") || isAbsolute(rel)) continue;
    let dir = base;
    for (const part of rel === "" ? [] : rel.split(sep)) checked.push((dir = join(dir, part)));
  }
  for (const file of checked) {
    if (!isLink(file)) continue;
    const which = file === target ? "it is a symbolic link" : `${file} is a symbolic link`;
    throw new ContractpinError(
      "REPORT_WRITE_FAILED",
      `${path}: cannot write ${what}: ${which}, and contractpin does not write through one; nothing was written (remove the link, or give another path)`,
    );
  }
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false; // not there (yet): writing it will say so
  }
}

/** How {@link replaceFile} writes. */
interface ReplaceOptions {
  what: string;
  ops: AtomicWriteOps;
  /** The new file's mode (default: the existing file's, else 0644). */
  mode: number | undefined;
  /** The error code of a failed write. */
  code: "LOCK_WRITE_FAILED" | "REPORT_WRITE_FAILED";
}

/** The atomic replacement of `target`; `shown` names it in the error message. */
async function replaceFile(
  target: string,
  shown: string,
  data: string | Uint8Array,
  { what, ops, mode, code }: ReplaceOptions,
): Promise<void> {
  mode ??= existsSync(target) ? statSync(target).mode & 0o777 : 0o644;
  const dir = dirname(target);
  const temp = join(dir, `.${basename(target)}.${process.pid}.${Date.now().toString(36)}.tmp`);
  try {
    await ops.writeNew(temp, data, mode);
    await ops.rename(temp, target);
  } catch (cause) {
    await ops.unlink(temp).catch(() => undefined);
    throw new ContractpinError(code, `${shown}: cannot write ${what}: ${reason(cause)}`, {
      cause,
    });
  }
  await ops.syncDir(dir);
}

/** Options of {@link writeLock}. */
export interface WriteLockOptions {
  /** An interrupt: once aborted, nothing is written (the signal's reason is thrown). */
  signal?: AbortSignal;
  /**
   * The command creates a lock and must not touch one that another command
   * created meanwhile (`init` without --force). Default false.
   */
  exclusive?: boolean;
}

/**
 * Writes `lock`, the result of a command that started from `previous` (the
 * lock as it read it, or undefined when there was none), without losing the
 * change of a command that wrote the same lock meanwhile.
 *
 * Servers are read without holding anything. Only the write itself holds the
 * lock's guard (src/io/write-guard.ts): it re-reads the lock, and if another
 * command changed it, re-applies this command's change on top
 * (src/core/lock-rebase.ts); a server both changed is LOCK_CHANGED (exit 2),
 * and nothing is written. A lock whose content would not change (generated_at
 * aside) is not rewritten, so that re-pinning an unchanged server makes no
 * git churn.
 *
 * @returns whether the file was written.
 */
export async function writeLock(
  path: string,
  lock: Lock,
  previous: Lock | undefined,
  options: WriteLockOptions = {},
): Promise<boolean> {
  if (previous !== undefined && sameContent(previous, lock)) {
    // Nothing to change: no need to take the guard (the lock may be read-only).
    return false;
  }
  const target = existsSync(path) ? realpathSync(path) : path;
  return withWriteGuard(
    target,
    path,
    async () => {
      const current = await readLockIfExists(path);
      const rebased =
        previous === undefined && current !== undefined && options.exclusive === true
          ? { conflict: "" }
          : rebaseLock(previous, lock, current);
      // Checked last, with nothing left to wait for: an interrupt wins over the write.
      options.signal?.throwIfAborted();
      if ("conflict" in rebased) {
        const which =
          rebased.conflict === ""
            ? "another command created it"
            : `another command changed server ${JSON.stringify(rebased.conflict)}`;
        throw new ContractpinError(
          "LOCK_CHANGED",
          `${path}: the lock changed while contractpin was reading servers (${which}); nothing was written; run the command again`,
        );
      }
      if (current !== undefined && sameContent(current, rebased.lock)) return false;
      await writeFileAtomic(path, renderLock(rebased.lock));
      return true;
    },
    options.signal,
  );
}

/**
 * A hint for a lock that a git merge left with conflict markers: re-pinning
 * is how a merged lock is made whole again, since digests cannot be merged by
 * hand.
 */
function conflictHint(bytes: Uint8Array): string {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
  return /^(<{7}|>{7}) /m.test(text) && /^={7}\r?$/m.test(text)
    ? "; it has git conflict markers: resolve them (take either side of each), then run 'contractpin update' to re-pin from the servers"
    : "";
}
