import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCli } from "./cli.js";
import { Workspace } from "./workspace.js";

/** A stdio server of a test lock: its command (`docker run IMAGE`) and env. */
export type ImageServer = { command: string[]; env?: Record<string, string> };

/**
 * A lock whose servers run these commands. Each is pinned from a one-tool
 * dump and then given its command: there is no container runtime to read an
 * image from, and outdated reads only the command.
 */
export function imageProject(servers: Record<string, ImageServer>): Workspace {
  const ws = new Workspace();
  ws.dump("tools.json", [{ name: "echo", inputSchema: { type: "object" } }]);
  for (const name of Object.keys(servers)) {
    const r = runCli(["add", name, "--file", "tools.json"], { cwd: ws.dir });
    assert.equal(r.code, 0, r.stderr);
  }
  const lock = ws.lockJson();
  for (const [name, server] of Object.entries(servers)) {
    const { path: _p, ...pinned } = lock.servers[name]!;
    lock.servers[name] = { ...pinned, transport: "stdio", ...server };
  }
  ws.write("contractpin.lock", JSON.stringify(lock, null, 2));
  return ws;
}

/** A docker config folder in `ws` (`name`, may be nested) whose config.json holds `config`. */
export function dockerConfig(ws: Workspace, name: string, config: unknown): string {
  const dir = ws.path(name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "config.json"), JSON.stringify(config));
  return dir;
}

/** An `auths` entry as `docker login` writes it. */
export const basicAuth = (user: string, password: string) => ({
  auth: Buffer.from(`${user}:${password}`).toString("base64"),
});
