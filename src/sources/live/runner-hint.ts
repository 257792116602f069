import { basename } from "node:path";

// The package runners whose first run downloads the server before starting
// it, printing nothing meanwhile (npx, pnpm dlx, bunx, uvx, pipx, yarn dlx).
const RUNNERS = new Set(["npx", "npm", "pnpm", "pnpx", "bunx", "bun", "yarn", "uvx", "uv", "pipx"]);

/** Whether `command` (a path or a name) is one of the package runners. */
export function isPackageRunner(command: string): boolean {
  return RUNNERS.has(basename(command).replace(/\.(cmd|exe)$/i, ""));
}

/**
 * A hint for a stdio server started through a package runner that timed out
 * having written nothing at all, on stdout or stderr: the runner was most
 * likely still downloading the package (a first run), or cannot reach its
 * registry and retries in silence (a proxy or CA it was not given).
 *
 * @param command the server's argv, expanded
 * @param silent whether the server wrote nothing on stdout or stderr
 * @param timeoutSeconds the --timeout that ran out
 */
export function silentRunnerHint(
  command: string,
  silent: boolean,
  timeoutSeconds: number,
): string | undefined {
  const runner = basename(command).replace(/\.(cmd|exe)$/i, "");
  if (!silent || !RUNNERS.has(runner)) return undefined;
  return (
    `${runner} printed nothing: on a first run it may still be downloading the package, ` +
    `or it cannot reach its registry (a proxy or CA certificate it was not given; docs/servers.md, "Servers"); ` +
    `run the command once by hand, or give more time with --timeout ${Math.max(120, timeoutSeconds * 4)}`
  );
}
