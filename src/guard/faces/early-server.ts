import { resolve } from "node:path";
import { isDeepStrictEqual } from "node:util";
import type { JsonValue } from "../../core/json/json-value.js";
import { endServer, type SpawnedServer, type SpawnSpec } from "../../sources/live/spawn-server.js";

/**
 * Where the launcher's early start (src/cli/early-start.ts, a bundle of its
 * own) leaves the server it started for the guard, which the CLI bundle runs
 * later in the same process: a global, since the two bundles share no module.
 */
const SLOT = Symbol.for("contractpin.guard.earlyServer");

/** The lock file as the early start read it: its stamp (io/file-stamp.ts) before the read, its bytes, their strict parse. */
export interface EarlyLockRead {
  /** Absolute. */
  path: string;
  stamp: string;
  bytes: Uint8Array;
  parsed: JsonValue;
}

interface Slot {
  /** The server started early, until the guard takes it or it is ended. */
  server: SpawnedServer | undefined;
  /** The lock it was started from, until the guard takes it. */
  lock: EarlyLockRead | undefined;
  /** Servers started early that nobody took, while they are being ended: when each has. */
  ending: Map<SpawnedServer, Promise<void>>;
}

/** What the early start left, if it ran in this process. */
function offeredSlot(): Slot | undefined {
  return (globalThis as { [SLOT]?: Slot })[SLOT];
}

/** The server started early, now the caller's; undefined when there is none (or it was claimed). */
function claim(): SpawnedServer | undefined {
  const offered = offeredSlot();
  const server = offered?.server;
  if (offered !== undefined) offered.server = undefined;
  return server;
}

/**
 * Leaves what the early start did for the guard to take: the lock it read,
 * and the server it started, if it did. A server nobody takes is ended by
 * {@link earlyServersEnded}, or at the latest killed with its group when the
 * process exits (spawnServer), so that no server outlives the guard.
 */
export function offerEarlyStart(lock: EarlyLockRead, server?: SpawnedServer): void {
  (globalThis as { [SLOT]?: Slot })[SLOT] = { server, lock, ending: new Map() };
}

/**
 * Ends a server started early that nobody takes, as a server is ended
 * (endServer: stdin closed, SIGTERM, SIGKILL after a grace; a package runner
 * killed mid-download leaves npm's folder locked), in the background;
 * {@link earlyServersEnded} waits for it.
 */
function end(offered: Slot, server: SpawnedServer): void {
  offered.ending.set(
    server,
    endServer(server).finally(() => offered.ending.delete(server)),
  );
}

/**
 * The lock as the early start read it, when it read the file at `path`
 * (relative to the working directory); only the first call gets it. Whether
 * the file is still that one is the caller's to check, by its stamp.
 */
export function earlyLockRead(path: string): EarlyLockRead | undefined {
  const offered = offeredSlot();
  const read = offered?.lock;
  if (offered === undefined || read === undefined || read.path !== resolve(path)) return undefined;
  offered.lock = undefined;
  return read;
}

/**
 * The server the launcher started, for the guard to take over, when it was
 * started from exactly `spec` (the command, arguments, environment and
 * working directory the guard computed from the lock it validated); else
 * undefined, and a server started from anything else is ended (the lock
 * changed in between, say). Only the first call can take it.
 */
export function takeEarlyServer(spec: SpawnSpec): SpawnedServer | undefined {
  const server = claim();
  if (server === undefined || isDeepStrictEqual(server.spec, spec)) return server;
  end(offeredSlot()!, server);
  return undefined;
}

/**
 * Ends a server the launcher started that the guard does not take (its lock
 * could not be read, the server is not one it starts from a spec), in the
 * background.
 */
export function discardEarlyServer(): void {
  const server = claim();
  if (server !== undefined) end(offeredSlot()!, server);
}

/**
 * Ends a server the launcher started that nobody took (the guard refused its
 * arguments or could not open its log, say), and resolves once every such
 * server has ended: the guard then exits at once, leaving none behind.
 */
export async function earlyServersEnded(): Promise<void> {
  discardEarlyServer();
  const offered = offeredSlot();
  while (offered !== undefined && offered.ending.size > 0)
    await Promise.all(offered.ending.values());
}
