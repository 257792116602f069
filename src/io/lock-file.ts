import { resolve } from "node:path";
import { ContractpinError, isContractpinError } from "../core/errors.js";
import { renderLock, sameContent, validateLock, type Lock } from "../core/lock/lock.js";
import type { JsonValue } from "../core/json/json-value.js";
import { parseJson } from "../core/json/strict-json.js";
import { rebaseLock } from "../core/lock/lock-rebase.js";
import { readRegularFile, reason } from "./read-input.js";
import { MAX_LOCK_BYTES } from "../core/limits.js";
import { positionOf } from "../core/json/text-position.js";
import { writeFileAtomic } from "./atomic-write.js";
import { withWriteGuard } from "./write-guard.js";
import { checkoutBases, refuseLinks } from "./write-target.js";

/**
 * Reads and validates the lock at `path`. Every problem is a ContractpinError
 * (exit 2) whose message starts with the path: LOCK_MISSING when there is no
 * file, LOCK_CORRUPT when it does not parse strictly or has the wrong shape.
 */
export async function readLock(path: string): Promise<Lock> {
  return lockFromBytes(path, readLockBytes(path));
}

/**
 * The bytes of the lock at `path`, read as {@link readLock} reads them.
 *
 * @throws ContractpinError LOCK_MISSING when there is no file, LOCK_CORRUPT
 *   when it cannot be read (or is not a regular file of bounded size).
 */
export function readLockBytes(path: string): Uint8Array {
  try {
    // A regular file of bounded size: a lock that is a FIFO or /dev/zero fails at once.
    return readRegularFile(path, MAX_LOCK_BYTES);
  } catch (cause) {
    const errno = (cause as { cause?: NodeJS.ErrnoException }).cause?.code;
    const code = errno === "ENOENT" ? "LOCK_MISSING" : "LOCK_CORRUPT";
    const hint =
      code === "LOCK_MISSING" ? " (create one with 'contractpin init' or 'contractpin add')" : "";
    const why = (cause as { why?: string }).why ?? reason(cause);
    throw new ContractpinError(code, `${path}: cannot read the lock: ${why}${hint}`, { cause });
  }
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
 * (src/core/lock/lock-rebase.ts); a server both changed is LOCK_CHANGED (exit 2),
 * and nothing is written. A lock whose content would not change (generated_at
 * aside) is not rewritten, so that re-pinning an unchanged server makes no
 * git churn. A lock that is a symbolic link, or lies in a folder of the
 * checkout that is one, is refused (WRITE_REFUSED, exit 2).
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
  // Never through a symbolic link (src/io/write-target.ts): the guard and the file are where `path` says.
  refuseLinks(path, checkoutBases(), "the lock");
  return withWriteGuard(
    resolve(path),
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
