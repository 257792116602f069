import {
  closeSync,
  linkSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { ContractpinError } from "../core/errors.js";
import { reason } from "./read-input.js";

/** How long a command waits for another one to finish writing the same lock (ms). */
export const GUARD_WAIT_MS = 10_000;
/**
 * A guard older than this is stale whoever holds it (ms). A writer holds it
 * for one read, compare and rename of the lock (milliseconds), so only a
 * writer killed with SIGKILL, whose pid has since been reused, is this old.
 */
export const GUARD_STALE_MS = 30_000;

/** The guard file of a lock: beside the file the lock's path resolves to. */
export function guardPath(target: string): string {
  return join(dirname(target), `.${basename(target)}.lck`);
}

/**
 * Runs `work` holding an exclusive guard on `target`: a file created with
 * O_EXCL beside it, holding this process's pid, removed afterwards. Another
 * command that wants to write the same lock waits (polling, up to
 * GUARD_WAIT_MS), then fails with LOCK_BUSY (exit 2). A guard whose pid is no
 * longer running (a writer killed with SIGKILL) or older than GUARD_STALE_MS
 * is removed, so no crash blocks later runs. Hold it only for the short
 * read-compare-write of the lock, never while servers are read.
 *
 * @param shown the lock's path as the user gave it, for messages.
 */
export async function withWriteGuard<T>(
  target: string,
  shown: string,
  work: () => Promise<T>,
  signal?: AbortSignal,
): Promise<T> {
  const guard = guardPath(target);
  const ino = await acquire(guard, shown, signal);
  try {
    return await work();
  } finally {
    release(guard, ino);
  }
}

async function acquire(guard: string, shown: string, signal?: AbortSignal): Promise<number> {
  const deadline = Date.now() + GUARD_WAIT_MS;
  for (;;) {
    signal?.throwIfAborted();
    const ino = tryCreate(guard, shown);
    if (ino !== undefined) return ino;
    const holder = inspect(guard);
    if (holder === "gone") continue; // released meanwhile: try again at once
    if (holder !== undefined && stale(holder) && breakStale(guard, holder.ino)) continue;
    if (Date.now() > deadline) {
      const who = holder !== undefined && holder.pid > 0 ? ` (pid ${holder.pid})` : "";
      throw new ContractpinError(
        "LOCK_BUSY",
        `${shown}: another contractpin${who} is writing the lock; nothing was written; run the command again (if no contractpin is running, delete ${guard})`,
      );
    }
    await sleep(20 + Math.random() * 30, signal);
  }
}

/** Creates the guard; returns its inode, or undefined when it exists already. */
function tryCreate(guard: string, shown: string): number | undefined {
  let fd: number;
  try {
    fd = openSync(guard, "wx", 0o644);
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === "EEXIST") return undefined;
    throw new ContractpinError(
      "LOCK_WRITE_FAILED",
      `${shown}: cannot write the lock: cannot create ${guard}: ${reason(cause)}`,
      { cause },
    );
  }
  try {
    writeSync(fd, `${process.pid}\n`);
    return statSync(guard).ino;
  } catch (cause) {
    unlinkQuietly(guard);
    throw new ContractpinError(
      "LOCK_WRITE_FAILED",
      `${shown}: cannot write the lock: cannot write ${guard}: ${reason(cause)}`,
      { cause },
    );
  } finally {
    closeSync(fd);
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // gone already
  }
}

interface Holder {
  pid: number;
  ino: number;
  mtimeMs: number;
}

/** Who holds the guard; "gone" when it was released meanwhile; undefined when it cannot be read. */
function inspect(guard: string): Holder | "gone" | undefined {
  try {
    const { ino, mtimeMs } = statSync(guard);
    // Empty while its writer is between creating it and writing its pid.
    const pid = Number.parseInt(readFileSync(guard, "utf8"), 10);
    return { pid: Number.isSafeInteger(pid) ? pid : 0, ino, mtimeMs };
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ENOENT" ? "gone" : undefined;
  }
}

function stale({ pid, mtimeMs }: Holder): boolean {
  if (Date.now() - mtimeMs > GUARD_STALE_MS) return true;
  if (pid <= 0) return false;
  // This process never waits for a guard it holds: its own pid is left over from a crash.
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    // EPERM: the process exists, under another user.
    return (err as NodeJS.ErrnoException).code === "ESRCH";
  }
}

/**
 * Removes a stale guard without removing a fresh one: two commands may find
 * the same stale guard, and one may already have replaced it with its own.
 * The guard is first moved aside (atomic), then checked to be the stale file.
 *
 * @returns false when the guard could not be moved (then wait as for a live one).
 */
function breakStale(guard: string, staleIno: number): boolean {
  const aside = `${guard}.${process.pid}.stale`;
  try {
    renameSync(guard, aside);
  } catch (err) {
    // ENOENT: another command moved it first; try again at once.
    return (err as NodeJS.ErrnoException).code === "ENOENT";
  }
  try {
    if (statSync(aside).ino !== staleIno) {
      // A fresh guard was taken: put it back, unless yet another one exists now.
      try {
        linkSync(aside, guard);
      } catch {
        // Nothing better to do: its holder's write still re-reads the lock first.
      }
    }
  } finally {
    unlinkQuietly(aside);
  }
  return true;
}

function release(guard: string, ino: number): void {
  try {
    // Never remove a guard that is not ours (ours was judged stale and replaced).
    if (statSync(guard).ino === ino) unlinkSync(guard);
  } catch {
    // gone already
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
