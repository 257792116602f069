import type { Lock, PinnedServer } from "../../core/lock/lock.js";
import type { ServerSource } from "../../core/source/server-source.js";
import { mapServer, type ImportedServer, type MapContext } from "../map-server.js";
import type { RawServer } from "../raw-server.js";

/** Whether a config entry may be wrapped: it is the server the lock pins under its name. */
export type Match =
  | { ok: true; imported: ImportedServer; pinned: PinnedServer }
  | { ok: false; pinned: boolean; reason: string };

type Field = "transport" | "command" | "env" | "cwd" | "url" | "headers";

function same(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => v === b[i])
    );
  }
  if (typeof a === "object" && a !== null && typeof b === "object" && b !== null) {
    const ka = Object.keys(a).sort();
    const kb = Object.keys(b).sort();
    const ra = a as Record<string, unknown>;
    const rb = b as Record<string, unknown>;
    return same(ka, kb) && ka.every((k) => ra[k] === rb[k]);
  }
  // An empty env or header map is the same as none.
  const empty = (v: unknown) =>
    v === undefined || (typeof v === "object" && v !== null && Object.keys(v).length === 0);
  return a === b || (empty(a) && empty(b));
}

/** The first field in which two definitions differ, or undefined when they are the same. */
export function differingField(config: ServerSource, lock: ServerSource): Field | undefined {
  const c = config as Partial<Record<Field, unknown>>;
  const l = lock as Partial<Record<Field, unknown>>;
  const fields: Field[] = ["transport", "command", "url", "cwd", "env", "headers"];
  return fields.find((f) => !same(c[f] ?? undefined, l[f] ?? undefined));
}

/**
 * Matches a config entry with the lock the way `init` named it: the entry's
 * name is the lock's server name, and the entry, imported as `init` imports
 * it (references rewritten, literal secrets moved to `${VAR}`), must define
 * exactly what the lock pins (transport, command, url, cwd, env, headers).
 * Otherwise a guard launched for that name would start another server than
 * the entry does.
 */
export function matchLock(
  name: string,
  raw: RawServer,
  file: string,
  ctx: MapContext,
  lock: Lock,
): Match {
  if (!Object.hasOwn(lock.servers, name)) {
    return { ok: false, pinned: false, reason: "not pinned in the lock" };
  }
  const pinned = lock.servers[name]!;
  if (pinned.transport === "file") {
    return { ok: false, pinned: true, reason: "the lock pins it from a dump file, not a server" };
  }
  const mapped = mapServer(name, raw, file, ctx);
  if ("skip" in mapped) {
    return {
      ok: false,
      pinned: true,
      reason: `it cannot be compared with the lock: ${mapped.skip}`,
    };
  }
  const field = differingField(mapped.server.source, pinned);
  if (field !== undefined && ctx.lockDir !== undefined) {
    // A lock that init wrote before it kept ${workspaceFolder} relative holds the absolute path.
    const { lockDir: _, ...absolute } = ctx;
    const again = matchLock(name, raw, file, absolute, lock);
    if (again.ok) return again;
  }
  if (field !== undefined) {
    const what = field === "transport" ? "transport" : field;
    return {
      ok: false,
      pinned: true,
      reason: `its ${what} is not what the lock pins (wrapping it would guard a different server)`,
    };
  }
  return { ok: true, imported: mapped.server, pinned };
}
