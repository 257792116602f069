import { canonicalize } from "../json/canonical-json.js";
import type { Lock, PinnedServer } from "./lock.js";

/** The result of {@link rebaseLock}: the lock to write, or the server two writers both changed. */
export type Rebased = { lock: Lock } | { conflict: string };

/**
 * Re-applies one command's change to the lock as it is now on disk.
 *
 * A command reads the lock (`base`), works for a while (reading servers), and
 * computes the lock it wants (`ours`). If another command wrote the lock
 * meanwhile (`current`), writing `ours` as it is would undo that command's
 * change. Instead, the servers this command changed (added, removed or
 * re-pinned: those whose definition or digests differ between `base` and
 * `ours`) are applied to `current`, provided each of them is still as this
 * command found it. A server changed by both is a conflict: the caller must
 * not write, and the command must be run again.
 *
 * Pure: `undefined` stands for "no lock file".
 */
export function rebaseLock(base: Lock | undefined, ours: Lock, current: Lock | undefined): Rebased {
  const before = base?.servers ?? {};
  const now = current?.servers ?? {};
  const changed = [...new Set([...Object.keys(before), ...Object.keys(ours.servers)])].filter(
    (name) => text(before, name) !== text(ours.servers, name),
  );
  for (const name of changed) {
    if (text(before, name) !== text(now, name)) return { conflict: name };
  }
  const keep = Object.entries(now).filter(([name]) => !changed.includes(name));
  const mine = changed
    .filter((name) => Object.hasOwn(ours.servers, name))
    .map((name) => [name, ours.servers[name]!] as const);
  // Object.fromEntries defines own properties, so a server named __proto__ survives.
  const servers: Record<string, PinnedServer> = Object.fromEntries([...keep, ...mine]);
  // The configs member (SPEC.md 12) is one value: ours when this command changed it, else the current one.
  const changedConfigs = canonicalize(base?.configs ?? null) !== canonicalize(ours.configs ?? null);
  if (
    changedConfigs &&
    canonicalize(base?.configs ?? null) !== canonicalize(current?.configs ?? null)
  )
    return { conflict: "configs" };
  const configs = changedConfigs ? ours.configs : current?.configs;
  const lock: Lock = { generated_at: ours.generated_at, servers };
  if (configs !== undefined) lock.configs = configs;
  return { lock };
}

/** A server's canonical text, or "" when the lock has no server of that name. */
function text(servers: Readonly<Record<string, PinnedServer>>, name: string): string {
  return Object.hasOwn(servers, name) ? canonicalize(servers[name]) : "";
}
