import { readFileSync } from "node:fs";

let cached: string | undefined;

/** contractpin's version, from its package.json (reported by --version and as clientInfo). */
export function packageVersion(): string {
  cached ??= (
    JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
      version: string;
    }
  ).version;
  return cached;
}
