// What the wrap unit tests share: a lock that pins what a config defines (as
// init would, without reading any server), and wrap/unwrap of text in memory.
import type { Lock } from "../../src/core/lock/lock.js";
import type { ServerSource } from "../../src/core/source/server-source.js";
import { importConfig } from "../../src/config/import-config.js";
import { planFile, type FilePlan } from "../../src/config/wrap/plan.js";

export const CTX = { projectDir: "/work/project", home: "/home/ada", required: true };
export const LAUNCHER = ["/usr/bin/node", "/opt/contractpin/contractpin.cjs"];
export const LOCK_PATH = "/abs/contractpin.lock";

/** A lock pinning `sources` (no tools: wrap looks at the definitions only). */
export function lockOf(sources: Record<string, ServerSource>): Lock {
  const servers = Object.fromEntries(
    Object.entries(sources).map(([name, source]) => [
      name,
      { ...source, tool_count: 0, digest: `sha256:${"0".repeat(64)}`, tools: {} },
    ]),
  );
  return { generated_at: "2026-12-01T00:00:00Z", servers } as Lock;
}

/** A lock pinning every server init imports from `text`, as `file`. */
export function lockFor(text: string, file = "mcp.json"): Lock {
  const imported = importConfig(new TextEncoder().encode(text), file, CTX);
  return lockOf(Object.fromEntries(imported.servers.map((s) => [s.name, s.source])));
}

export function wrapText(text: string, lock: Lock = lockFor(text), file = "mcp.json"): FilePlan {
  const target = { lock, lockPath: LOCK_PATH, launcher: LAUNCHER };
  return planFile(new TextEncoder().encode(text), file, { wrap: target }, CTX)!;
}

export function unwrapText(text: string, file = "mcp.json"): FilePlan {
  return planFile(new TextEncoder().encode(text), file, { unwrap: undefined }, CTX)!;
}
