import { DEFAULT_MAX_MESSAGE_BYTES } from "../core/limits.js";
import { readRegularFile } from "../io/read-input.js";

/** A config file's bytes, or why there are none (`absent`: no such file). */
export type ConfigFileRead = { bytes: Uint8Array } | { absent: boolean; why: string };

/**
 * Reads a client config file, synchronously, as the lock is read: only a
 * regular file of at most 64 MiB. A FIFO, a device or a directory in its
 * place is refused at once: an asynchronous read of a FIFO blocked a thread
 * of the pool that the process then waited for at exit, so verify, check and
 * init hung, even on Ctrl-C. Absent means no file (or a file where a folder
 * of its path should be).
 */
export function readConfigFile(file: string): ConfigFileRead {
  try {
    return { bytes: readRegularFile(file, DEFAULT_MAX_MESSAGE_BYTES) };
  } catch (err) {
    const code = ((err as Error).cause as NodeJS.ErrnoException | undefined)?.code;
    if (code === "ENOENT" || code === "ENOTDIR") return { absent: true, why: "no such file" };
    const why = (err as Error & { why?: string }).why ?? String(err);
    return { absent: false, why: `cannot be read (${why})` };
  }
}
