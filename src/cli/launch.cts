#!/usr/bin/env node
// The `contractpin` command. It runs the CLI bundle (cli.cjs, from main.ts)
// through V8's code cache (cli.v8cache), which the build makes from a sample
// `verify` run: the functions such a run calls arrive compiled, saving a few
// milliseconds of a command that takes about a hundred. V8 checks the cache
// against the source and its own version and flags; one it rejects (another
// Node.js release), or a missing one, only means compiling as usual.
import fs = require("node:fs");
import path = require("node:path");
import vm = require("node:vm");
import jit = require("./jit.js");

const BUNDLE = path.join(__dirname, "cli.cjs");
/** Where the build writes the cache (scripts/code-cache.cjs), from a sample `verify`. */
const CACHE = path.join(__dirname, "cli.v8cache");
/**
 * The cache of the same bundle from a sample `guard` session: a client
 * starts the guard in front of its server and waits for it, and what the
 * guard compiles (its relay, its list policy) is not what verify compiles.
 */
const GUARD_CACHE = path.join(__dirname, "guard.v8cache");
/** The guard's early start, a small bundle of its own (src/cli/early-start.ts). */
const EARLY_START = path.join(__dirname, "guard-start.cjs");

/**
 * The bundle, compiled as Node would compile a CommonJS module, with the
 * cache (`cache`, else the verify one) if V8 accepts it. Turns V8's
 * optimizing compiler off, for the process.
 */
function compileCli(useCache: boolean, cache: string = CACHE): vm.Script {
  // Always off here, when the build makes the cache and when a run uses it:
  // V8 accepts a cache only under the flags it was made with (see jit.ts).
  jit.optimizerOff();
  const source = fs.readFileSync(BUNDLE, "utf8");
  let cachedData: Buffer | undefined;
  if (useCache) {
    for (const file of cache === CACHE ? [CACHE] : [cache, CACHE]) {
      try {
        cachedData = fs.readFileSync(file);
        break;
      } catch {
        // No cache: the next one, or compile as usual.
      }
    }
  }
  return new vm.Script(
    `(function (exports, require, module, __filename, __dirname) {${source}\n})`,
    { filename: BUNDLE, cachedData },
  );
}

/** Runs the CLI; returns the compiled script, from which the build takes the cache. */
function runCli(script: vm.Script): void {
  const main = script.runInThisContext() as (
    exports: object,
    req: NodeJS.Require,
    mod: object,
    filename: string,
    dirname: string,
  ) => void;
  const mod = { exports: {} };
  main(mod.exports, require, mod, BUNDLE, __dirname);
}

/**
 * Starts the server of `contractpin guard` before the CLI bundle is loaded
 * (dist/bin/guard-start.cjs, src/cli/early-start.ts): the client waits for
 * the guard's start and then the server's, and this lets the two overlap.
 * The guard takes the server only when it would start the very same one;
 * whatever goes wrong here leaves the guard to start it as usual.
 */
function startGuardEarly(): void {
  try {
    (require(EARLY_START) as { startEarly(args: string[]): void }).startEarly(
      process.argv.slice(3),
    );
  } catch {
    // No early start (a build without it): the guard starts the server itself.
  }
}

/**
 * Runs the command line in `process.argv` (the command from index 2): what
 * running this file does, and what the entry of a wrapped project config
 * calls (src/config/wrap/launch-form.ts), which loads this file by its path
 * in the project only once it has checked that it is there. Keep its name.
 */
function main(): void {
  const guard = process.argv[2] === "guard";
  if (guard) startGuardEarly();
  const script = compileCli(true, guard ? GUARD_CACHE : CACHE);
  if (!jit.isQuickCommand(process.argv[2])) jit.optimizerOn();
  runCli(script);
}

if (require.main === module) main();

export = { compileCli, runCli, main, CACHE, GUARD_CACHE };
