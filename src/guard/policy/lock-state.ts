import { ContractpinError } from "../../core/errors.js";
import type { JsonValue } from "../../core/json/json-value.js";
import { sourceOf, type Lock, type PinnedServer } from "../../core/lock/lock.js";
import type { ServerSource } from "../../core/source/server-source.js";
import { parseJson } from "../../core/json/strict-json.js";
import { lockFromBytes, readLockBytes } from "../../io/lock-file.js";
import { fileStamp } from "../../io/file-stamp.js";
import { earlyLockRead } from "../faces/early-server.js";

/**
 * The lock as the guard sees it while it runs: read at start, and read again
 * whenever the file changed (or vanished) since, checked with one stat. A
 * lock that cannot be read, or no longer pins the server, is an error every
 * time it is asked for: the guard then admits nothing.
 */
export class LockState {
  private stamp = "";
  private lock: Lock | undefined;
  /** What {@link startable} read, for the next validation when the file is still that one. */
  private read: { stamp: string; bytes: Uint8Array; parsed: JsonValue } | undefined;

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
    return this.validated();
  }

  /** {@link current}, at once. */
  validated(): PinnedServer {
    const stamp = fileStamp(this.path);
    if (stamp !== this.stamp || this.lock === undefined) this.load(stamp);
    return this.entry();
  }

  /**
   * The server's entry in the lock exactly as {@link startable} read it,
   * validated whole (when the file changed since, the next {@link current}
   * reads it again, as for any change while the guard runs).
   */
  validatedAsStarted(): PinnedServer {
    if (this.read === undefined) return this.validated();
    this.load(this.read.stamp);
    return this.entry();
  }

  /** Reads and validates the whole lock (or the bytes {@link startable} read, when they are of `stamp`). */
  private load(stamp: string): void {
    this.lock = undefined;
    this.stamp = "";
    const read = this.read?.stamp === stamp ? this.read : undefined;
    this.read = undefined;
    this.lock =
      read === undefined
        ? lockFromBytes(this.path, readLockBytes(this.path))
        : lockFromBytes(this.path, read.bytes, read.parsed);
    this.stamp = stamp;
  }

  private entry(): PinnedServer {
    const servers = this.lock!.servers;
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

  /**
   * How the server is reached, from the lock strictly parsed but, apart from
   * its format members and this server's source, not yet validated: so that
   * the guard can start a stdio server while it validates the rest (a client
   * waits for the start, docs/guard.md#start-up). Undefined when the lock
   * cannot be read or parsed, or that much is not valid (the next
   * {@link validated} says why). Nothing the server sends may be used before
   * {@link validated} has accepted the lock.
   */
  startable(): ServerSource | undefined {
    const stamp = fileStamp(this.path);
    try {
      // The launcher's early start read and parsed the same file, when it is still that one.
      const early = earlyLockRead(this.path);
      const read =
        early !== undefined && early.stamp === stamp && stamp !== ""
          ? early
          : { stamp, bytes: readLockBytes(this.path), parsed: undefined };
      const parsed = read.parsed ?? parseJson(read.bytes);
      this.read = { stamp, bytes: read.bytes, parsed };
      return sourceOf(parsed, this.server);
    } catch {
      return undefined;
    }
  }
}
