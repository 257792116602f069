// Where ${workspaceFolder} leads in a stdio server's definition, written so
// that the lock works in every clone: relative to the lock's directory (cwd)
// or to the server's working directory (command, args, env).
import path from "node:path";
import type { RawServer } from "./raw-server.js";
import type { MapContext, ReferenceContext, Rewrite } from "./references.js";

/** `to` relative to `from`, with forward slashes (a lock is shared across systems); "." for the same. */
function relativeTo(from: string, to: string): string {
  return path.relative(from, to).split(path.sep).join("/") || ".";
}

/**
 * A stdio server's cwd for the lock, and the context its other strings are
 * rewritten in. With the lock's directory known, `${workspaceFolder}` is
 * written relative: in cwd, to the lock's directory (which the lock resolves
 * cwd against); in command, args and env, to the server's working directory,
 * which is where the server resolves a relative path. A cwd that still holds
 * a reference (`${HOME}`) leaves the others absolute: where it leads is known
 * only when the server is read.
 */
export function workingDirectory(
  raw: RawServer,
  rewrite: Rewrite,
  ctx: MapContext,
): { cwd?: string; at: ReferenceContext } {
  // An empty cwd means the default to the clients; the lock spells that by leaving it out.
  const given = raw.cwd === undefined || raw.cwd === "" ? undefined : raw.cwd;
  if (ctx.lockDir === undefined) {
    return { ...(given === undefined ? {} : { cwd: rewrite(given) }), at: ctx };
  }
  const lockDir = ctx.lockDir;
  if (given === undefined)
    return { at: { ...ctx, workspace: relativeTo(lockDir, ctx.projectDir) } };
  let cwd = rewrite(given, { ...ctx, workspace: relativeTo(lockDir, ctx.projectDir) });
  if (cwd.includes("${")) return { cwd, at: ctx };
  if (/\$\{workspace(Folder|Root)\}/.test(given)) {
    cwd = path.posix.normalize(cwd);
    if (cwd === "." || cwd === "./")
      return { at: { ...ctx, workspace: relativeTo(lockDir, ctx.projectDir) } };
  }
  return { cwd, at: { ...ctx, workspace: relativeTo(path.resolve(lockDir, cwd), ctx.projectDir) } };
}
