import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from "node:fs";
import { ContractpinError } from "../core/errors.js";
import { DEFAULT_MAX_MESSAGE_BYTES, formatBytes } from "../core/limits.js";

/**
 * Reads a file, or standard input for `-`, as raw bytes (decoding is the
 * strict parser's job), at most `maxBytes` of them. A named file must be a
 * regular file: a FIFO would block until some writer came, a device such as
 * /dev/zero would never end. Standard input may be a pipe; it is read up to
 * the limit and no further.
 *
 * @param maxBytes the largest input accepted (default DEFAULT_MAX_MESSAGE_BYTES, 64 MiB).
 * @throws ContractpinError INPUT_UNREADABLE naming the file and why.
 */
export async function readInput(
  path: string,
  maxBytes = DEFAULT_MAX_MESSAGE_BYTES,
): Promise<Uint8Array> {
  if (path === "-") return readStdin(maxBytes);
  return readRegularFile(path, maxBytes);
}

// O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused once
// open). O_NOCTTY: a terminal device never becomes the controlling terminal.
// Neither exists on Windows, where a FIFO cannot be opened by path anyway.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

/**
 * Reads a regular file of at most `maxBytes` bytes. The file is opened first
 * and checked through its descriptor, so it cannot be swapped for a FIFO
 * between the check and the read; it is read synchronously, which a regular
 * file allows (a CLI has nothing else to do meanwhile, and it saves the
 * thread-pool round trip at start-up).
 *
 * @param hint appended to the message when the file is over the limit
 *   (for example the option that raises it).
 * @throws ContractpinError INPUT_UNREADABLE: missing, not a regular file, too large, unreadable.
 */
export function readRegularFile(path: string, maxBytes: number, hint = ""): Uint8Array {
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS);
  } catch (cause) {
    throw unreadable(path, reason(cause), cause);
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw unreadable(path, `it is ${kind(stats)}, not a regular file`);
    const tooLarge = () =>
      unreadable(path, `it is larger than the limit of ${formatBytes(maxBytes)}${hint}`);
    if (stats.size > maxBytes) throw tooLarge();
    // The size may change after fstat (a file being written, a /proc file that
    // reports 0): read until the end, but never more than one byte past the limit.
    let buf = Buffer.allocUnsafe(stats.size + 1);
    let length = 0;
    for (;;) {
      if (length === buf.length) {
        if (length > maxBytes) throw tooLarge();
        const next = Buffer.allocUnsafe(Math.min(buf.length * 2, maxBytes + 1));
        buf.copy(next, 0, 0, length);
        buf = next;
      }
      const read = readSync(fd, buf, length, buf.length - length, null);
      if (read === 0) break;
      length += read;
    }
    if (length > maxBytes) throw tooLarge();
    return buf.subarray(0, length);
  } catch (cause) {
    if (cause instanceof ContractpinError) throw cause;
    throw unreadable(path, reason(cause), cause);
  } finally {
    closeSync(fd);
  }
}

async function readStdin(maxBytes: number): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  let length = 0;
  // Leaving the loop early destroys the stream: nothing past the limit is read.
  for await (const chunk of process.stdin) {
    length += (chunk as Buffer).length;
    if (length > maxBytes) {
      throw new ContractpinError(
        "INPUT_UNREADABLE",
        `cannot read standard input: it is larger than the limit of ${formatBytes(maxBytes)}`,
      );
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks, length);
}

/** An INPUT_UNREADABLE error; `why` is kept apart too, for callers that word the path their own way. */
function unreadable(
  path: string,
  why: string,
  cause?: unknown,
): ContractpinError & { why: string } {
  return Object.assign(
    new ContractpinError("INPUT_UNREADABLE", `cannot read ${path}: ${why}`, { cause }),
    { why },
  );
}

function kind(stats: Stats): string {
  if (stats.isDirectory()) return "a directory";
  if (stats.isFIFO()) return "a FIFO (named pipe)";
  if (stats.isCharacterDevice()) return "a character device";
  if (stats.isBlockDevice()) return "a block device";
  if (stats.isSocket()) return "a socket";
  return "an unknown kind of file";
}

/** A short reason for a filesystem error: "no such file" rather than a stack. */
export function reason(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case "ENOENT":
      return "no such file";
    case "EACCES":
    case "EPERM":
      return "permission denied";
    case "EISDIR":
      return "is a directory";
    default:
      return err instanceof Error ? err.message : String(err);
  }
}
