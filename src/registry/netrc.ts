import { readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The `.netrc` pip (through requests) and uv read for an index URL that
 * carries no credential: `NETRC` when set, else `$HOME/.netrc`. Returns its
 * text, or undefined when there is none.
 */
export function readNetrc(env: Readonly<Record<string, string>>, home: string): string | undefined {
  const path = env["NETRC"] || join(home, ".netrc");
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

/**
 * The Basic Authorization header the `.netrc` text gives `host` (its
 * `machine` entry, else `default`), or undefined when it gives none.
 */
export function netrcAuthorization(text: string, host: string): string | undefined {
  const tokens = text
    .split("\n")
    .filter((line) => !line.trimStart().startsWith("#"))
    .join("\n")
    .split(/\s+/)
    .filter((t) => t !== "");
  let current: { machine?: string; login?: string; password?: string } | undefined;
  const entries: (typeof current & object)[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t === "machine" || t === "default") {
      current = t === "machine" ? { machine: tokens[++i] ?? "" } : {};
      entries.push(current);
    } else if ((t === "login" || t === "password" || t === "account") && current !== undefined) {
      const value = tokens[++i] ?? "";
      if (t !== "account") current[t] = value;
    } else if (t === "macdef") {
      break; // a macro runs to a blank line; nothing after it is read
    }
  }
  const entry =
    entries.find((e) => e.machine === host) ?? entries.find((e) => e.machine === undefined);
  if (entry === undefined || entry.password === undefined) return undefined;
  return `Basic ${Buffer.from(`${entry.login ?? ""}:${entry.password}`).toString("base64")}`;
}
