import type { ServerSource } from "./server-source.js";

/**
 * The env variable of an entry that `contractpin wrap` rewrote: it holds the
 * entry's original text, byte for byte (src/config/wrap/guard-fields.ts), what
 * `unwrap` puts back and what every reader of client configs reads instead.
 */
export const WRAPPED_ENTRY_VARIABLE = "CONTRACTPIN_WRAPPED_ENTRY";

/** contractpin's bin as a path (`…/contractpin`, `…/dist/bin/contractpin.cjs`) or its npm package (`contractpin@1.2.3`). */
const CONTRACTPIN = /^contractpin(?:\.(?:c|m)?js|\.cmd|@.*)?$/i;

/**
 * Whether `source` starts a contractpin guard rather than a server: a wrapped
 * entry (its env holds {@link WRAPPED_ENTRY_VARIABLE}), or a command in which
 * contractpin, by path or as a package, is followed by `guard`
 * (`npx --no contractpin guard NAME`, `node …/contractpin.cjs guard NAME`).
 * A lock that pinned one would make the guard start a guard of itself, and
 * so on without end. Pure.
 */
export function runsGuard(source: ServerSource): boolean {
  if (source.transport !== "stdio") return false;
  if (source.env !== undefined && Object.hasOwn(source.env, WRAPPED_ENTRY_VARIABLE)) return true;
  return source.command.some(
    (arg, i) => arg === "guard" && i > 0 && CONTRACTPIN.test(baseName(source.command[i - 1]!)),
  );
}

function baseName(path: string): string {
  return path.slice(Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\")) + 1);
}
