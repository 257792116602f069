import { setFlagsFromString } from "node:v8";

// V8's optimizing compiler (TurboFan) pays off in a process that runs the same
// code for long: the guard, a diff, init or verify of thousands of tools. A
// typical verify ends in about 150 ms, before the code it compiles has run hot
// enough to gain from it: there it only competes for the CPU and touches a
// sixth more memory pages (measured: verify of a 100-tool lock took about 8%
// less wall time without it; of a 10,000-tool lock, a third more). So the
// launcher (launch.cts) turns it off before the CLI is compiled, for every
// command (V8 checks its code cache against the flags, so they must be the
// same whenever the bundle is compiled), and turns it back on at once for
// every command but the quick ones, which turn it on when their input is
// large (verify: a live server, or thousands of pinned tools). The flag only
// decides whether hot functions get optimized from then on: every tier runs
// the same code with the same results.

/** The commands that run with the optimizing compiler off unless their input is large. */
const QUICK = new Set(["verify", "--version", "-V", "--help", "-h", "help"]);

/** Pinned tools from which a quick command turns the optimizing compiler on. */
export const LARGE_INPUT_TOOLS = 2000;

/** Turns the optimizing compiler off; the launcher calls it before compiling the CLI. */
export function optimizerOff(): void {
  setFlagsFromString("--no-turbofan");
}

/** Turns it on: hot functions are optimized from now on. */
export function optimizerOn(): void {
  setFlagsFromString("--turbofan");
}

/** Whether `command` (the first argument) starts with the optimizing compiler off. */
export function isQuickCommand(command: string | undefined): boolean {
  return command === undefined || QUICK.has(command);
}
