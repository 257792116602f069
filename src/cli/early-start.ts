// The guard's early start: the launcher (launch.cts) runs this small bundle
// (dist/bin/guard-start.cjs) for `contractpin guard` before it loads the CLI
// bundle, so that the server's own start, the longest part of a client's wait,
// overlaps the loading of the guard instead of following it
// (docs/guard.md#start-up).
import { dirname, resolve } from "node:path";
import { parseJson } from "../core/json/strict-json.js";
import { sourceOf } from "../core/lock/lock.js";
import { runsGuard } from "../core/source/guard-command.js";
import { offerEarlyStart, type EarlyLockRead } from "../guard/faces/early-server.js";
import { fileStamp } from "../io/file-stamp.js";
import { findLock } from "../io/find-lock.js";
import { readLockBytes } from "../io/lock-file.js";
import { stdioSpawnSpec } from "../sources/live/spawn-spec.js";
import { spawnServer, type SpawnSpec } from "../sources/live/spawn-server.js";
import { EXIT, INTERRUPTS } from "./exit-code.js";
import { guardArgs } from "./guard-args.js";

/**
 * Starts the stdio server that `contractpin guard ARGS` would start, and
 * leaves it for the guard (guard/faces/early-server.ts), which takes it only
 * when it computes the very same spawn spec from the lock it has validated
 * whole, and ends it otherwise. Does nothing whenever anything is out of the
 * ordinary (arguments the guard would refuse, --listen, a lock that cannot be
 * read or strictly parsed, a server entry whose source is not valid, an HTTP
 * server, an image that runs by its recorded digest, an unset variable): the
 * guard then takes its usual path and says what is wrong. Never throws.
 */
export function startEarly(
  args: string[],
  cwd: string = process.cwd(),
  env: NodeJS.ProcessEnv = process.env,
): void {
  try {
    const early = prepareEarlyStart(args, cwd, env);
    if (early === undefined) return;
    const { lock, spec } = early;
    if (spec !== undefined) holdInterrupts();
    offerEarlyStart(lock, spec === undefined ? undefined : spawnServer(spec));
  } catch {
    // The guard's own path finds the same problem and reports it.
  }
}

/**
 * Makes the interrupts (Ctrl-C, SIGTERM, SIGHUP) wait for the guard's own
 * handlers (main.ts). With
 * no handler, Node.js ends the process on them at once, by the signal: no
 * exit hook runs, and a server started early that ignores the end of its
 * stdin would outlive the guard. With one, the signal waits for the event
 * loop, and main.ts, which installs its handlers in the same tick as the
 * bundle loads, ends the run and its server. Should the CLI never have got
 * that far, this handler ends the process, and the exit hook the server.
 */
function holdInterrupts(): void {
  for (const signal of INTERRUPTS) {
    const early = (): void => {
      if (process.listeners(signal).some((listener) => listener !== early)) return;
      process.stderr.write(`contractpin: interrupted by ${signal}\n`);
      process.exit(EXIT.ERROR);
    };
    process.on(signal, early);
  }
}

/**
 * The lock the guard would read for these arguments, read and strictly
 * parsed, and what it would spawn, as far as can be known before the lock is
 * validated whole (none for a server it does not start from a spec: an HTTP
 * server, an image that runs by its recorded digest, a guard); undefined
 * with --listen.
 *
 * @throws ContractpinError for arguments the guard refuses, a lock that
 *   cannot be read or parsed, or an unset variable.
 */
export function prepareEarlyStart(
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): { lock: EarlyLockRead; spec: SpawnSpec | undefined } | undefined {
  const { name, values } = guardArgs(args);
  if (values.listen !== undefined) return undefined; // a server per client session
  // As the guard finds it (cli/common.ts lockPath), relative to the working directory.
  const path = resolve(cwd, values.lock ?? findLock(cwd));
  const stamp = fileStamp(path);
  const bytes = readLockBytes(path);
  const lock = { path, stamp, bytes, parsed: parseJson(bytes) };
  const source = sourceOf(lock.parsed, name);
  if (source?.transport !== "stdio" || runsGuard(source)) return { lock, spec: undefined };
  return { lock, spec: stdioSpawnSpec(source, { env, lockDir: dirname(path) }) };
}
