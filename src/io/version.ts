import { readFileSync } from "node:fs";

// Set by the CLI bundle (scripts/build.mjs); the library build reads package.json.
declare const CONTRACTPIN_VERSION: string | undefined;

let cached: string | undefined;

/** contractpin's version (reported by --version, and as clientInfo to servers). */
export function packageVersion(): string {
  if (typeof CONTRACTPIN_VERSION === "string") return CONTRACTPIN_VERSION;
  cached ??= (
    JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
      version: string;
    }
  ).version;
  return cached;
}
