import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { delimiter, join } from "node:path";
import { isLoopback } from "./auth-fetch.js";

/**
 * Whether an authorization URL may be opened in a browser: `https`, or
 * `http` to a loopback host; never a `file:`, `javascript:` or other scheme
 * an authorization server might put there.
 */
export function mayOpen(url: URL): boolean {
  return url.protocol === "https:" || (url.protocol === "http:" && isLoopback(url));
}

/**
 * Opens `url` in the person's browser (`open` on macOS, `xdg-open`
 * elsewhere) where one can be opened: never under CI, only for
 * {@link mayOpen} URLs, and only when the opener is installed. Returns
 * whether it tried; the URL is printed either way.
 */
export function openBrowser(url: URL, env: Readonly<Record<string, string | undefined>>): boolean {
  if (env.CI === "true" || !mayOpen(url)) return false;
  const opener = process.platform === "darwin" ? "open" : "xdg-open";
  const dir = (env.PATH ?? "")
    .split(delimiter)
    .find((d) => d !== "" && existsSync(join(d, opener)));
  if (dir === undefined) return false;
  try {
    // No shell: the URL is one argument.
    const child = spawn(join(dir, opener), [url.href], { stdio: "ignore", detached: true });
    child.on("error", () => undefined);
    child.unref();
    return true;
  } catch {
    return false;
  }
}
