import { homedir } from "node:os";
import { isAbsolute, relative, sep } from "node:path";
import { ContractpinError } from "../core/errors.js";

/** --from names files and --user discovers them: the two do not go together. */
export function checkConfigOptions(
  command: string,
  values: { from?: string[] | undefined; user?: boolean | undefined },
): void {
  if (values.from !== undefined && values.user === true) {
    throw new ContractpinError(
      "USAGE",
      `--user discovers configs; with --from, name the files instead (see 'contractpin ${command} --help')`,
    );
  }
}

/**
 * Says where a command looked when it found no client config: each file it
 * checked (relative to the current directory; a user-level one under the
 * home directory as ~/...), and whether the user-level ones were included.
 */
export function nothingFound(searched: string[], user: boolean, outcome: string): string {
  const home = homedir();
  const shown = searched.map((file) => {
    const fromCwd = relative(process.cwd(), file);
    if (!fromCwd.startsWith("..") && !isAbsolute(fromCwd)) return fromCwd.split(sep).join("/");
    const fromHome = relative(home, file);
    return !fromHome.startsWith("..") && !isAbsolute(fromHome)
      ? `~/${fromHome.split(sep).join("/")}`
      : file;
  });
  const scope = user
    ? "project and user-level configs"
    : "project configs only; --user adds the user-level ones";
  return `contractpin: no MCP client config found (looked for ${shown.join(", ")}: ${scope}); ${outcome}`;
}
