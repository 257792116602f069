// Builds the library (tsc: dist/*.js with types) and the CLI (one CommonJS
// bundle, dist/bin/contractpin.cjs). One file loads faster than thirty ES
// modules, which matters for a command CI runs on every push; the MCP client
// library stays external and is required only when a live server is read.
import { execFileSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { build } from "esbuild";

const root = new URL("..", import.meta.url);
const { version } = JSON.parse(readFileSync(new URL("package.json", root), "utf8"));
rmSync(new URL("dist", root), { recursive: true, force: true });
execFileSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.build.json"], {
  cwd: root,
  stdio: "inherit",
});
await build({
  entryPoints: ["src/cli/main.ts"],
  outfile: "dist/bin/contractpin.cjs",
  absWorkingDir: new URL(".", root).pathname,
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node20",
  packages: "external",
  define: { CONTRACTPIN_VERSION: JSON.stringify(version) },
  logLevel: "warning",
  logOverride: { "empty-import-meta": "silent" },
});
