import { spawn, type ChildProcess } from "node:child_process";
import { within } from "../../io/timers.js";
import { isPackageRunner } from "./runner-hint.js";

/** What to spawn: argv, environment and working directory, already expanded. */
export interface SpawnSpec {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
}

/** How a server process ended on its own: its exit code, or the signal that ended it. */
export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * A stdio server process as it was started, and what has become of it since:
 * whether it started, and how it ended. Both are recorded from the moment of
 * the spawn, so that whoever takes the process over later (the transport of
 * the guard, which the launcher's early start hands a process it started
 * before the CLI was loaded) misses none of it.
 */
export interface SpawnedServer {
  /** What it was started with. */
  readonly spec: SpawnSpec;
  readonly child: ChildProcess;
  /** Settles once: undefined when the process started, else why it could not be. */
  readonly started: Promise<Error | undefined>;
  /** How it exited; never settles for a process that could not be started. */
  readonly exit: Promise<ExitStatus>;
  /** Settles once it has exited, or could not be started. */
  readonly gone: Promise<void>;
  /** What it writes to stdout and stderr, each held until handed to its reader. */
  readonly stdout: Intake;
  readonly stderr: Intake;
}

/**
 * The most of a stream held for a reader not there yet; past it the stream is
 * paused, so a server that writes more waits (nothing is dropped). Only a
 * server that exits meanwhile, when Node.js reads its pipes to their end, can
 * push more: a server taken over after that is ended anyway.
 */
const HOLD_BYTES = 1024 * 1024;

/**
 * One output stream of a started server, read from the start: what arrives
 * before its reader is known is held (Node.js discards what nobody reads once
 * the process exits, and a server that fails at once says why on stderr), and
 * handed over, in order, once {@link Intake.to} names the reader.
 */
export class Intake {
  private held: Buffer[] = [];
  private heldBytes = 0;
  private reader: ((chunk: Buffer) => void) | undefined;

  constructor(private readonly stream: NodeJS.ReadableStream) {
    stream.on("data", (chunk: Buffer) => {
      if (this.reader !== undefined) return this.reader(chunk);
      this.held.push(chunk);
      this.heldBytes += chunk.length;
      if (this.heldBytes > HOLD_BYTES) stream.pause();
    });
  }

  /**
   * Every chunk goes to `reader`, those held first, from the next microtask
   * on: never from within this call, so that whoever takes a server over
   * decides (the guard validates its lock) before anything the server wrote
   * is read, as when a process is just spawned.
   */
  to(reader: (chunk: Buffer) => void): void {
    queueMicrotask(() => {
      this.reader = reader;
      const held = this.held;
      this.held = [];
      this.heldBytes = 0;
      for (const chunk of held) reader(chunk);
      this.stream.resume();
    });
  }
}

/** The servers started in this process that have not exited yet. */
const running = new Set<SpawnedServer>();

/**
 * Kills the process group of every server still running when this process
 * exits. A server is in a group of its own, so no signal that ends
 * contractpin reaches it, and one that ignores the end of its stdin would
 * outlive a process.exit() that skipped its polite end (a second Ctrl-C, an
 * uncaught exception): none may outlive contractpin.
 */
function killRunningAtExit(): void {
  for (const server of running) signalGroup(server, "SIGKILL");
}

/**
 * Starts a stdio server by `spec`, in its own process group (setsid), so that
 * the whole group, grandchildren included, can be ended; its stdin, stdout
 * and stderr are pipes, and what it writes waits in them until it is read.
 * A server still running when this process exits is killed with its group.
 */
export function spawnServer(spec: SpawnSpec): SpawnedServer {
  const child = spawn(spec.command, spec.args, {
    env: spec.env,
    cwd: spec.cwd,
    stdio: ["pipe", "pipe", "pipe"],
    detached: true, // setsid(): its own process group, so the whole group can be ended
    windowsHide: true,
  });
  const started = new Promise<Error | undefined>((done) => {
    child.once("spawn", () => done(undefined));
    // A command that could not be started never exits; a later error (none is
    // expected) must not crash the guard.
    child.on("error", done);
  });
  // "exit", not "close": a process the server left behind (in another
  // session) may hold its stdout open long after the server is gone.
  const exit = new Promise<ExitStatus>((done) => {
    child.once("exit", (code, signal) => done({ code, signal }));
  });
  const gone = new Promise<void>((done) => {
    void exit.then(() => done());
    void started.then((err) => err !== undefined && done());
  });
  const server: SpawnedServer = {
    spec,
    child,
    started,
    exit,
    gone,
    stdout: new Intake(child.stdout!),
    stderr: new Intake(child.stderr!),
  };
  if (running.size === 0) process.once("exit", killRunningAtExit);
  running.add(server);
  void gone.then(() => {
    running.delete(server);
    if (running.size === 0) process.removeListener("exit", killRunningAtExit);
  });
  return server;
}

/**
 * Sends `signal` to a started server's whole process group (grandchildren
 * included); nothing for one that never started (no pid). A group already
 * gone is no error.
 */
function signalGroup(server: SpawnedServer, signal: NodeJS.Signals): void {
  const pid = server.child.pid;
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

/** How long a package runner is given to end on SIGTERM before SIGKILL (it returns sooner when it does). */
const RUNNER_GRACE_MS = 5000;

/**
 * Ends a started server: stdin closed (the polite MCP shutdown), then SIGTERM
 * to its process group, then SIGKILL (after 1 s; a package runner gets 5 s),
 * then SIGKILL to the group once more for any process the server left
 * behind, and its pipes dropped (nothing more is read from a server being
 * ended). Resolves when it has exited (or 2 s after the last signal).
 * `signalled` is told before each signal is sent.
 */
export async function endServer(
  server: SpawnedServer,
  signalled: () => void = () => undefined,
): Promise<void> {
  const { child } = server;
  const exitsWithin = async (ms: number) =>
    (await within(
      server.gone.then(() => true),
      ms,
    )) === true;
  const signal = (name: NodeJS.Signals) => {
    if (child.pid === undefined) return;
    signalled();
    signalGroup(server, name);
  };
  child.stdin?.end();
  if (!(await exitsWithin(300))) {
    signal("SIGTERM");
    // A package runner in the middle of a download ends on SIGTERM by
    // tidying its cache (npm releases its install folder's lock): killed
    // before it has, the folder is left locked or half-written.
    const grace = isPackageRunner(server.spec.command) ? RUNNER_GRACE_MS : 1000;
    if (!(await exitsWithin(grace))) signal("SIGKILL");
  }
  signal("SIGKILL");
  child.stdout?.destroy();
  child.stderr?.destroy();
  child.stdin?.destroy();
  await exitsWithin(2000);
}
