// Builds the library (tsc: dist/*.js with types) and the CLI: one CommonJS
// bundle, dist/bin/cli.cjs, started by dist/bin/contractpin.cjs through V8's
// code cache (src/cli/launch.cts). One file loads faster than thirty ES
// modules, and a cached compile faster still, which matters for a command CI
// runs on every push; the MCP client library stays external and is required
// only when a live server is read.
//
// With --cli, only the CLI (what the GitHub Action runs): no library, no
// types, so no TypeScript; esbuild comes from scripts/action-build/, which
// pins it alone (the Action installs that and the runtime dependencies, not
// every development dependency).
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { requireDevDeps } from "./dev-deps.mjs";

const cliOnly = process.argv.includes("--cli");
if (!cliOnly) requireDevDeps();
const { build } = cliOnly
  ? createRequire(new URL("action-build/package.json", import.meta.url))("esbuild")
  : await import("esbuild");

const root = new URL("..", import.meta.url);
const { version } = JSON.parse(readFileSync(new URL("package.json", root), "utf8"));
rmSync(new URL("dist", root), { recursive: true, force: true });
if (!cliOnly) {
  execFileSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.build.json"], {
    cwd: root,
    stdio: "inherit",
  });
}
const common = {
  absWorkingDir: fileURLToPath(root),
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node20",
  packages: "external",
  logLevel: "warning",
  // Minified: the bundle is read, hashed against the code cache and compiled on
  // every run, and a quarter of it is code a clean verify never calls. Names
  // are kept, so that CONTRACTPIN_DEBUG stack traces still read.
  minify: true,
  keepNames: true,
};
await build({
  ...common,
  entryPoints: ["src/cli/main.ts"],
  outfile: "dist/bin/cli.cjs",
  define: { CONTRACTPIN_VERSION: JSON.stringify(version) },
  logOverride: { "empty-import-meta": "silent" },
});
// A bundle with one non-ASCII character is read as a two-byte string, twice
// the memory and slower to read and compile on every run; esbuild escapes
// non-ASCII everywhere but in regular expression literals, so write those
// with \u escapes.
const bundle = readFileSync(new URL("dist/bin/cli.cjs", root), "latin1");
const wide = /[^\t\n\r\x20-\x7e]/.exec(bundle);
if (wide !== null) {
  const at = bundle.slice(Math.max(0, wide.index - 60), wide.index + 20);
  throw new Error(`dist/bin/cli.cjs is not ASCII, near: ${at}`);
}
await build({
  ...common,
  entryPoints: ["src/cli/launch.cts"],
  outfile: "dist/bin/contractpin.cjs",
});
// The guard's early start (src/cli/early-start.ts): what the launcher runs
// before the CLI bundle, to start a guarded server while the guard loads. Its
// own bundle, a fifteenth of the CLI's, of the same sources.
await build({
  ...common,
  entryPoints: ["src/cli/early-start.ts"],
  outfile: "dist/bin/guard-start.cjs",
  logOverride: { "empty-import-meta": "silent" },
});

// A stdio MCP server for the guard's sample session: the tools of a dump
// (its path the first argument), one JSON-RPC message per line.
const SAMPLE_SERVER = `
const { tools } = JSON.parse(require("node:fs").readFileSync(process.argv[2], "utf8")).result;
require("node:readline").createInterface({ input: process.stdin }).on("line", (line) => {
  const m = JSON.parse(line);
  if (m.id === undefined) return;
  const result =
    m.method === "initialize"
      ? { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} },
          serverInfo: { name: "sample", version: "1.0.0" } }
      : m.method === "tools/list" ? { tools } : undefined;
  const answer = result === undefined
    ? { error: { code: -32601, message: "Method not found" } } : { result };
  process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: m.id, ...answer }) + "\\n");
});
`;

// The code cache, from a sample run: verify a lock of the bundled example dump,
// in a project with a client config (verify checks the project's configs on
// every run, so their functions belong in the cache too).
const bin = fileURLToPath(new URL("dist/bin/contractpin.cjs", root));
const work = mkdtempSync(join(tmpdir(), "contractpin-build-"));
try {
  const lock = join(work, "contractpin.lock");
  const dump = fileURLToPath(new URL("examples/server-memory.tools.json", root));
  execFileSync(process.execPath, [bin, "add", "memory", "--file", dump, "--lock", lock], {
    stdio: "pipe",
  });
  writeFileSync(join(work, ".mcp.json"), '{ "mcpServers": {} }\n');
  execFileSync(
    process.execPath,
    [fileURLToPath(new URL("scripts/code-cache.cjs", root)), "verify", "--lock", lock],
    { stdio: "pipe", cwd: work },
  );
  await guardCache(work, dump);
} finally {
  rmSync(work, { recursive: true, force: true });
}

/**
 * The guard's code cache, from a sample session: the example's tools served
 * by a small stdio server, pinned, then a client's initialize and tools/list
 * through `guard`. Without it (the sample failed: a warning) the guard runs
 * with verify's cache, as before.
 */
async function guardCache(work, dump) {
  const cache = fileURLToPath(new URL("dist/bin/guard.v8cache", root));
  rmSync(cache, { force: true });
  const server = join(work, "server.cjs");
  writeFileSync(server, SAMPLE_SERVER);
  const lock = join(work, "guard.lock");
  try {
    execFileSync(
      process.execPath,
      [bin, "add", "sample", "--lock", lock, "--", process.execPath, server, dump],
      { stdio: "pipe" },
    );
    const script = fileURLToPath(new URL("scripts/code-cache.cjs", root));
    const child = spawn(process.execPath, [script, "guard", "sample", "--lock", lock], {
      cwd: work,
      stdio: ["pipe", "pipe", "pipe"],
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
      // The tools/list answer: the session is done, the client goes away.
      if (out.includes('"id":2,')) child.stdin.end();
    });
    const message = (m) => child.stdin.write(JSON.stringify({ jsonrpc: "2.0", ...m }) + "\n");
    message({
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "build", version: "1" },
      },
    });
    message({ method: "notifications/initialized" });
    message({ id: 2, method: "tools/list" });
    const code = await new Promise((resolve) => child.on("close", resolve));
    clearTimeout(timer);
    if (code !== 0 || !existsSync(cache))
      throw new Error(`the sample guard session exited ${code}`);
  } catch (error) {
    rmSync(cache, { force: true });
    console.warn(`build: no guard code cache (${error.message}); the guard uses verify's`);
  }
}

// V8 rejects a cache made under other flags, silently: a launcher that set
// its flags differently when the cache was made than when it runs would lose
// the cache on every run. Check that a run accepts each.
for (const which of ["CACHE", "GUARD_CACHE"]) {
  const rejected = execFileSync(
    process.execPath,
    [
      "-e",
      "const l=require(process.argv[1]);process.stdout.write(String(l.compileCli(true,l[process.argv[2]]).cachedDataRejected))",
      bin,
      which,
    ],
    { encoding: "utf8" },
  );
  if (rejected !== "false")
    throw new Error(`V8 rejects the code cache it was just given (${which}: ${rejected})`);
}
