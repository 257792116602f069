// Build step: runs one contractpin command line (the arguments) through the
// launcher with no cache, then saves V8's code cache of the CLI bundle, which
// then holds every function that run compiled: to the launcher's CACHE, or to
// its GUARD_CACHE for a `guard` run. Fails, writing nothing, if the command
// does not succeed.
"use strict";
const { writeFileSync } = require("node:fs");
const launcher = require("../dist/bin/contractpin.cjs");

process.argv = [process.argv[0], "contractpin", ...process.argv.slice(2)];
const script = launcher.compileCli(false);
process.on("exit", (code) => {
  if (code !== 0) {
    process.stderr.write(`code cache: the sample run exited ${code}; no cache written\n`);
    return;
  }
  writeFileSync(
    process.argv[2] === "guard" ? launcher.GUARD_CACHE : launcher.CACHE,
    script.createCachedData(),
  );
});
launcher.runCli(script);
