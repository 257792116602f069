import { statSync } from "node:fs";
import { ContractpinError } from "../core/errors.js";
import type { Lock, PinnedServer } from "../core/lock.js";
import { readLock } from "../io/lock-file.js";

/**
 * The lock as the guard sees it while it runs: read at start, and read again
 * whenever the file changed (or vanished) since, checked with one stat. A
 * lock that cannot be read, or no longer pins the server, is an error every
 * time it is asked for: the guard then admits nothing.
 */
export class LockState {
  private stamp = "";
  private lock: Lock | undefined;

  constructor(
    readonly path: string,
    readonly server: string,
  ) {}

  /** True when the file is no longer the one last read (changed, replaced or deleted). */
  changed(): boolean {
    return fileStamp(this.path) !== this.stamp;
  }

  /**
   * The server's entry in the lock as the file is now.
   *
   * @throws ContractpinError LOCK_MISSING, LOCK_CORRUPT (and the other LOCK_*
   *   codes), or SERVER_UNKNOWN when the lock does not pin the server.
   */
  async current(): Promise<PinnedServer> {
    const stamp = fileStamp(this.path);
    if (stamp !== this.stamp || this.lock === undefined) {
      this.lock = undefined;
      this.stamp = "";
      const lock = await readLock(this.path);
      this.lock = lock;
      this.stamp = stamp;
    }
    const servers = this.lock.servers;
    if (!Object.hasOwn(servers, this.server)) {
      const known = Object.keys(servers);
      throw new ContractpinError(
        "SERVER_UNKNOWN",
        `no server named '${this.server}' in ${this.path}` +
          (known.length > 0 ? `; it pins: ${known.join(", ")}` : "; it pins no servers"),
      );
    }
    return servers[this.server]!;
  }
}

/** What identifies one version of a file: device, inode, size and modification time; "" when it cannot be read. */
function fileStamp(path: string): string {
  try {
    const s = statSync(path, { bigint: true });
    return `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
  } catch {
    return "";
  }
}
