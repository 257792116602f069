// Which server definitions start contractpin's guard rather than a server
// (src/core/source/guard-command.ts): a lock that pinned one would make the guard
// start a guard of itself.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { runsGuard, WRAPPED_ENTRY_VARIABLE } from "../../../src/core/source/guard-command.js";
import type { ServerSource } from "../../../src/core/source/server-source.js";
import { GUARD_SHIM } from "../../../src/config/wrap/launch-form.js";

const stdio = (command: string[], env?: Record<string, string>): ServerSource =>
  env === undefined ? { transport: "stdio", command } : { transport: "stdio", command, env };

describe("runsGuard", () => {
  it("a wrapped entry (its env keeps the original) and contractpin's guard by path or package", () => {
    for (const source of [
      stdio(["npx", "-y", "pkg"], { [WRAPPED_ENTRY_VARIABLE]: '{"command": "npx"}' }),
      stdio(["npx", "--no", "contractpin", "guard", "memory", "--lock", "contractpin.lock"]),
      stdio(["npx", "-y", "contractpin@1.4.0", "guard", "memory"]),
      stdio([
        "/usr/bin/node",
        "/p/node_modules/contractpin/dist/bin/contractpin.cjs",
        "guard",
        "m",
      ]),
      stdio(["./node_modules/.bin/contractpin", "guard", "m"]),
      // A shared project config's form (src/config/wrap/launch-form.ts), copied without its env.
      stdio([
        "node",
        "-e",
        GUARD_SHIM,
        "node_modules/contractpin/dist/bin/contractpin.cjs",
        "guard",
        "m",
      ]),
      stdio(["C:\\p\\node_modules\\.bin\\contractpin.cmd", "guard", "m"]),
    ]) {
      assert.equal(runsGuard(source), true, JSON.stringify(source));
    }
  });

  it("not a server whose arguments merely say guard, nor another package, nor http or a file", () => {
    for (const source of [
      stdio(["npx", "-y", "@acme/guard-server", "guard"]),
      stdio(["npx", "-y", "contractpin-fixture-server", "guard"]),
      stdio(["node", "server.js", "--mode", "guard"]),
      stdio(["guard"]),
      stdio(["npx", "contractpin", "verify"], { OTHER: "x" }),
      { transport: "http", url: "http://127.0.0.1:8808/mcp" } as ServerSource,
      { transport: "file", path: "contractpin guard" } as ServerSource,
    ]) {
      assert.equal(runsGuard(source), false, JSON.stringify(source));
    }
  });
});
