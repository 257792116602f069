import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { killAtEnd } from "./cleanup.js";

/** The built CLI: the package's bin, as `npm test` builds it. */
export const CLI = fileURLToPath(new URL("../../dist/bin/contractpin.cjs", import.meta.url));
export const ROOT = fileURLToPath(new URL("../../", import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `contractpin ARGS` to completion, without a TTY and without colour settings of the caller. */
export function runCli(
  args: string[],
  options: {
    input?: string | Uint8Array;
    cwd?: string;
    env?: Record<string, string | undefined>;
  } = {},
): CliResult {
  const env: Record<string, string | undefined> = {
    ...process.env,
    NO_COLOR: undefined,
    FORCE_COLOR: undefined,
    // Run on GitHub Actions, the suite must not see stop-commands markers nor
    // append to the job's real summary; a test that means them sets them.
    GITHUB_ACTIONS: undefined,
    GITHUB_STEP_SUMMARY: undefined,
    // Nor CI's plain progress lines of add, init and update (a test that means them sets CI).
    CI: undefined,
  };
  const r = spawnSync(process.execPath, [CLI, ...args], {
    input: options.input ?? "",
    cwd: options.cwd ?? ROOT,
    env: { ...env, ...options.env },
    encoding: "utf8",
    timeout: 60_000,
    // A process hung where SIGTERM cannot end it (a thread blocked on a FIFO) fails the test.
    killSignal: "SIGKILL",
  });
  if (r.error) throw r.error;
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Asserts one line on stderr, no stack trace. */
export function oneLine(stderr: string): boolean {
  return (
    stderr.endsWith("\n") && stderr.trimEnd().split("\n").length === 1 && !/\n\s+at /.test(stderr)
  );
}

/** The per-server object for a dump, computed by the independent Python implementation. */
export function pythonDigest(path: string): unknown {
  const r = spawnSync(
    "python3",
    [fileURLToPath(new URL("../make_vectors.py", import.meta.url)), "--digest-dump", path],
    {
      encoding: "utf8",
    },
  );
  if (r.status !== 0) throw new Error(`make_vectors.py --digest-dump failed: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/** Starts `contractpin ARGS` without waiting, for tests that signal it mid-run. */
export function startCli(
  args: string[],
  options: { cwd?: string; env?: Record<string, string | undefined> } = {},
): { child: ChildProcess; done: Promise<CliResult & { signal: NodeJS.Signals | null }> } {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: options.cwd ?? ROOT,
    env: {
      ...process.env,
      NO_COLOR: undefined,
      GITHUB_ACTIONS: undefined,
      GITHUB_STEP_SUMMARY: undefined,
      CI: undefined,
      ...options.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  killAtEnd(child);
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<CliResult & { signal: NodeJS.Signals | null }>((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return { child, done };
}

/**
 * Resolves once the CLI running as `pid` has installed its interrupt
 * handlers, up to 20 s: a Ctrl-C sent before then ends it by Node's default
 * instead, which a test that interrupts a run after a fixed delay meets on a
 * loaded machine. main.ts installs them for every interrupt at once, SIGHUP
 * among them, which Node.js does not catch by itself (it does catch SIGINT
 * and SIGTERM from its start, to restore the terminal): so SIGHUP's bit of
 * the process's SigCgt mask (Linux, /proc) says that they are there.
 */
export async function interruptible(pid: number): Promise<void> {
  const bit = 1n << 0n; // SIGHUP, signal 1
  for (let i = 0; i < 400; i++) {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const caught = /^SigCgt:\s*([0-9a-f]+)$/m.exec(status)?.[1];
    if (caught !== undefined && (BigInt(`0x${caught}`) & bit) !== 0n) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`process ${pid} never installed its interrupt handlers`);
}
