// What a test file creates, removed when it ends: temporary folders, and the
// processes it started (servers, and the pids fake servers record in their
// state files) that are still running, even when an assertion failed first.
//
// node's test runner runs each test file in its own process, so a registry of
// this module lives as long as one file: it is emptied by a root-level `after`
// hook (when the file's tests have run) and, should that not run, by the
// process's 'exit' event (synchronous, so it can still remove and kill).
import { type ChildProcess } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after } from "node:test";

const dirs = new Set<string>();
const children = new Set<ChildProcess>();
const recorded = new Set<number>();
const cleaners = new Set<() => void>();

/** A new temporary folder, removed with everything in it when the test file ends. */
export function tempDir(prefix = "contractpin-test-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.add(dir);
  return dir;
}

/** Ends this child process (SIGKILL) when the test file ends, if it is still running then. */
export function killAtEnd(child: ChildProcess): void {
  children.add(child);
}

/** Runs `clean` (synchronously) when the test file ends. */
export function atEnd(clean: () => void): void {
  cleaners.add(clean);
}

// Files in which the fake stdio server records the pids of itself, its
// grandchild and its daemon helper (tests/fixtures/servers/fake-stdio-server.mjs).
const PID_FILE = /\.(?:pid|grandchild|daemon)$/;

/** The command line of `pid`, or undefined once it has ended. */
function commandLine(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
  } catch {
    return undefined;
  }
}

/** Kills a pid read from a state file, if it still runs a fake server or its helper. */
function killRecorded(pid: number): void {
  const argv = commandLine(pid);
  // A pid recycled since by anything else is left alone.
  if (argv?.[0] !== process.execPath) return;
  if (!argv.some((a) => a.includes("fake-stdio-server") || a.startsWith("set"))) return;
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // already gone
  }
}

/** Kills what is left running and removes every temporary folder. Idempotent. */
export function cleanUp(): void {
  for (const clean of cleaners) {
    try {
      clean();
    } catch {
      // a cleaner must not keep the others from running
    }
  }
  cleaners.clear();
  for (const dir of dirs) {
    let names: string[] = [];
    try {
      names = readdirSync(dir, { recursive: true }) as string[];
    } catch {
      // removed already
    }
    for (const name of names.filter((n) => PID_FILE.test(n))) {
      try {
        const pid = Number(readFileSync(join(dir, name), "utf8"));
        if (Number.isInteger(pid) && pid > 0) recorded.add(pid);
      } catch {
        // not a pid file after all
      }
    }
  }
  // A child not yet seen to exit has not been reaped, so its pid is still its own.
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  for (const pid of recorded) killRecorded(pid);
  children.clear();
  recorded.clear();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs.clear();
}

after(cleanUp);
process.on("exit", cleanUp);
