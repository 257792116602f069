// Where contractpin may write. A repository is data that a pull request or a
// clone controls: it can commit any file a command writes (the lock, its
// contract snapshots, a report's path) as a symbolic link to a file outside
// it, say ~/.bashrc, and a write that followed the link would put
// server-chosen text there. So no file is ever written through a link: the
// one rule below, used by every writer (writeFileAtomic, writeReportAtomic,
// and the checks the pinning commands make before reading any server).
import { lstatSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { ContractpinError, type ErrorCode } from "../core/errors.js";

/**
 * The folders below which no folder of a written file's path may be a
 * symbolic link ({@link refuseLinks}): the current directory and, under
 * GitHub Actions, the workspace (a checkout a pull request controls).
 *
 * @param env the environment (GITHUB_WORKSPACE).
 */
export function checkoutBases(
  env: Readonly<Record<string, string | undefined>> = process.env,
): string[] {
  const workspace = env["GITHUB_WORKSPACE"];
  return workspace === undefined || workspace === "" ? [process.cwd()] : [process.cwd(), workspace];
}

/** Which error a refused write is: a report's (REPORT_WRITE_FAILED) or a pin's file (WRITE_REFUSED). */
export type RefusalCode = Extract<ErrorCode, "REPORT_WRITE_FAILED" | "WRITE_REFUSED">;

/**
 * Refuses `path` when it is a symbolic link (dangling or not), or when a
 * folder of its path below one of `bases` ({@link checkoutBases}) is one,
 * where a link could lead the file anywhere the process can write. Folders
 * above the bases are the machine's own (a /tmp that is a link stays usable).
 * A path that does not exist yet passes: writing it will say what is wrong.
 *
 * @param what the file, for the error message ("the lock", "the report").
 * @param code the error's code (default WRITE_REFUSED); either is exit 2.
 * @throws ContractpinError `code`, one line naming the link; nothing was written.
 */
export function refuseLinks(
  path: string,
  bases: readonly string[],
  what: string,
  code: RefusalCode = "WRITE_REFUSED",
): void {
  const target = resolve(path);
  const checked = [target];
  for (const base of bases.map((b) => resolve(b))) {
    const rel = relative(base, dirname(target));
    if (rel.startsWith("..") || isAbsolute(rel)) continue;
    let dir = base;
    for (const part of rel === "" ? [] : rel.split(sep)) checked.push((dir = join(dir, part)));
  }
  for (const file of checked) {
    if (!isLink(file)) continue;
    const which = file === target ? "it is a symbolic link" : `${file} is a symbolic link`;
    throw new ContractpinError(
      code,
      `${path}: cannot write ${what}: ${which}, and contractpin does not write through one; nothing was written (remove the link, or give another path)`,
    );
  }
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false; // not there (yet): writing it will say so
  }
}
