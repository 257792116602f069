import {
  closeSync,
  lstatSync,
  fsyncSync,
  openSync,
  renameSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { ContractpinError } from "../core/errors.js";
import { reason } from "./read-input.js";
import { refuseLinks } from "./write-target.js";

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
 * Never through a symbolic link (src/io/write-target.ts): a link at `path` is
 * refused; a writer that means a link's destination (a client config) passes
 * the real path, after deciding it may write there.
 *
 * @param what the file, for the error message (default "the lock").
 * @param mode the new file's mode (default: the existing file's, else 0644).
 * @throws ContractpinError WRITE_REFUSED for a link; LOCK_WRITE_FAILED when the write fails.
 */
export async function writeFileAtomic(
  path: string,
  data: string,
  what = "the lock",
  ops: AtomicWriteOps = nodeOps,
  mode?: number,
): Promise<void> {
  refuseLinks(path, [], what);
  await replaceFile(resolve(path), path, data, { what, ops, mode, code: "LOCK_WRITE_FAILED" });
}

/** Options of {@link writeReportAtomic}. */
export interface NoFollowOptions {
  /** The new file's mode (default: the existing file's, else 0644). */
  mode?: number;
  ops?: AtomicWriteOps;
}

/**
 * Writes `data` to `path` as {@link writeFileAtomic} writes the lock, but
 * never through a symbolic link, for a file whose path may be in a checkout
 * that a pull request controls (a report, a dump, the OAuth state file):
 * `path` itself must not be one, nor any folder of its path below one of
 * `bases` (the current directory, the workspace: checkoutBases in
 * src/io/write-target.ts). A link planted at `path` after that check is replaced by the rename, never
 * followed; one at the temporary name makes the write fail (O_EXCL).
 *
 * @param what the file, for the error message (e.g. "the report").
 * @throws ContractpinError REPORT_WRITE_FAILED (exit 2) for a link, or when the write fails.
 */
export async function writeReportAtomic(
  path: string,
  data: string | Uint8Array,
  what: string,
  bases: readonly string[],
  { mode, ops = nodeOps }: NoFollowOptions = {},
): Promise<void> {
  refuseLinks(path, bases, what, "REPORT_WRITE_FAILED");
  // Lexically resolved: `a/../x` is written where it was checked, whatever `a` is.
  await replaceFile(resolve(path), path, data, { what, ops, mode, code: "REPORT_WRITE_FAILED" });
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
  // lstat: the mode of a link planted at a target that must not be followed is not taken.
  mode ??= modeOf(target) ?? 0o644;
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

/** The mode of the regular file at `path` (never a link's destination's), if there is one. */
function modeOf(path: string): number | undefined {
  try {
    const stats = lstatSync(path);
    return stats.isFile() ? stats.mode & 0o777 : undefined;
  } catch {
    return undefined;
  }
}
