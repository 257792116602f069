import { getMember, type JsonValue } from "../json/json-value.js";
import { corrupt, object, onlyKeys } from "./lock-shape.js";

/**
 * The lock's `configs` member (SPEC.md 12): the client configs the lock
 * covers, and the servers in them the team leaves unpinned on purpose. With
 * it, `verify` and `check` on any clone read the same files and stay quiet
 * about the same servers. Pure data.
 */
export interface LockConfigs {
  /** Config files, relative to the lock's directory, `/`-separated; sorted, unique. */
  files: string[];
  /** Server names that a config may define without the lock pinning them; sorted, unique. */
  unpinned: string[];
}

/**
 * Whether `file` is a path as `configs.files` holds one: relative, `/`
 * between segments, no empty or `.` segment, no backslash, no NUL (a `..`
 * segment is allowed: a lock in `ci/` covers `../.mcp.json`).
 */
export function isCoveredPath(file: string): boolean {
  if (file === "" || file.includes("\\") || file.includes("\0")) return false;
  if (file.startsWith("/") || /^[A-Za-z]:/.test(file)) return false;
  return file.split("/").every((segment) => segment !== "" && segment !== ".");
}

/**
 * Checks the `configs` member and returns it typed. A name both pinned and
 * left unpinned, a path that is not relative, or a list that is not sorted
 * and unique (one lock, one spelling) is corrupt.
 *
 * @param pinned the lock's server names.
 * @throws ContractpinError LOCK_CORRUPT naming the offending key.
 */
export function validateConfigs(value: JsonValue, pinned: readonly string[]): LockConfigs {
  const configs = object(value, "configs");
  onlyKeys(configs, "configs", ["files", "unpinned"]);
  const files = sortedStrings(getMember(configs, "files"), "configs.files");
  files.forEach((file, i) => {
    if (!isCoveredPath(file)) {
      corrupt(
        `configs.files[${i}]`,
        "must be a path relative to the lock's directory, with / between its segments",
      );
    }
  });
  const unpinned = sortedStrings(getMember(configs, "unpinned"), "configs.unpinned");
  unpinned.forEach((name, i) => {
    if (pinned.includes(name)) {
      corrupt(`configs.unpinned[${i}]`, "names a server the lock pins");
    }
  });
  if (files.length === 0 && unpinned.length === 0) {
    corrupt("configs", "is empty (a lock that covers no config has no configs member)");
  }
  return { files, unpinned };
}

function sortedStrings(value: JsonValue | undefined, where: string): string[] {
  if (!Array.isArray(value))
    corrupt(where, value === undefined ? "is missing" : "must be an array");
  const out: string[] = [];
  value.forEach((v, i) => {
    if (typeof v !== "string" || v === "") corrupt(`${where}[${i}]`, "must be a non-empty string");
    if (i > 0 && !(out[i - 1]! < v)) {
      corrupt(`${where}[${i}]`, "is out of order or repeated (the list is sorted and unique)");
    }
    out.push(v);
  });
  return out;
}

/**
 * The `configs` member a command that rewrites the lock keeps from the lock it
 * read: the same files, and the unpinned names minus those it now pins (`add
 * NAME` of a server left unpinned pins it). Undefined when nothing is left.
 */
export function keptConfigs(
  previous: { configs?: LockConfigs } | undefined,
  servers: Readonly<Record<string, unknown>>,
): { configs?: LockConfigs } {
  const configs = previous?.configs;
  if (configs === undefined) return {};
  const unpinned = configs.unpinned.filter((name) => !Object.hasOwn(servers, name));
  if (configs.files.length === 0 && unpinned.length === 0) return {};
  return { configs: { files: configs.files, unpinned } };
}

/** Sorted and unique, by code unit, as `configs` keeps its lists. */
export function sortedUnique(values: Iterable<string>): string[] {
  return [...new Set(values)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
