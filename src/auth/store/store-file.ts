import { lstatSync, mkdirSync, type Stats } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { ContractpinError } from "../../core/errors.js";
import { isJsonObject, type JsonObject } from "../../core/json/json-value.js";
import { parseJson } from "../../core/json/strict-json.js";
import { writeFileAtomic } from "../../io/atomic-write.js";
import { readRegularFile, reason } from "../../io/read-input.js";
import { validEntries, type CredentialStore, type ResourceEntries } from "./store-entry.js";

/** The name of the file, in the config directory. */
export const CREDENTIALS_FILE = "credentials.json";

// A credentials file larger than this is not ours.
const MAX_BYTES = 4 * 1024 * 1024;

/**
 * contractpin's config directory: CONTRACTPIN_CONFIG_DIR, else
 * `$XDG_CONFIG_HOME/contractpin`, else `~/.config/contractpin`.
 */
export function configDir(env: Readonly<Record<string, string | undefined>>): string {
  if (env.CONTRACTPIN_CONFIG_DIR) return env.CONTRACTPIN_CONFIG_DIR;
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), ".config");
  return join(base, "contractpin");
}

/**
 * The credentials file: `credentials.json` in {@link configDir}, mode 0600 in
 * a directory of mode 0700, both owned by this user, written atomically. A
 * file or directory that others could read or write, a symbolic link, or one
 * owned by someone else is refused, never used or repaired.
 */
export function fileStore(env: Readonly<Record<string, string | undefined>>): CredentialStore {
  const dir = configDir(env);
  const path = join(dir, CREDENTIALS_FILE);
  const where = `the credentials file ${path}`;
  const readAll = (): JsonObject => {
    if (!checkedPath(dir, "directory", false)) return {};
    if (!checkedPath(path, "file", false)) return {};
    let value;
    try {
      value = parseJson(readRegularFile(path, MAX_BYTES));
    } catch (cause) {
      throw new ContractpinError("CREDENTIAL_STORE", `${where} cannot be read: ${reason(cause)}`, {
        cause,
      });
    }
    if (!isJsonObject(value) || value.version !== 1 || !isJsonObject(value.resources)) {
      throw new ContractpinError(
        "CREDENTIAL_STORE",
        `${where} is not a contractpin credentials file (version 1)`,
      );
    }
    return value.resources;
  };
  const makeDir = () => {
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
    } catch (cause) {
      throw new ContractpinError(
        "CREDENTIAL_STORE",
        `cannot create the directory ${dir}: ${reason(cause)}`,
        { cause },
      );
    }
    checkedPath(dir, "directory", true);
  };
  return {
    where,
    async read(resource) {
      const all = readAll();
      return Object.hasOwn(all, resource) ? validEntries(all[resource], where) : {};
    },
    async write(resource, entries: ResourceEntries) {
      const all = Object.fromEntries(
        Object.entries(readAll() as Record<string, unknown>).filter(([r]) => r !== resource),
      );
      if (Object.keys(entries).length > 0) all[resource] = entries;
      makeDir();
      try {
        await writeFileAtomic(
          path,
          `${JSON.stringify({ version: 1, resources: all }, null, 2)}\n`,
          "the credentials file",
          undefined,
          0o600,
        );
      } catch (cause) {
        const why = cause instanceof Error ? cause.message : String(cause);
        throw new ContractpinError("CREDENTIAL_STORE", `the credential was not saved: ${why}`, {
          cause,
        });
      }
      checkedPath(path, "file", true);
    },
    async ready() {
      // A directory that cannot be made or is refused, or a file that is
      // refused or corrupt, is found before a login, not after it.
      readAll();
      makeDir();
    },
  };
}

/**
 * Whether `path` exists as a `kind` fit to hold credentials; false when it
 * does not exist and `mustExist` is false.
 *
 * @param uid the user who must own it: by default this process's (none
 *   where the platform has no uids, e.g. Windows).
 * @throws ContractpinError CREDENTIAL_STORE when it is a symbolic link, of
 *   another kind, owned by another user, or open to group or others.
 */
export function checkedPath(
  path: string,
  kind: "file" | "directory",
  mustExist: boolean,
  uid: number | undefined = process.getuid?.(),
): boolean {
  let stats: Stats;
  try {
    stats = lstatSync(path);
  } catch (cause) {
    if (!mustExist && (cause as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw new ContractpinError("CREDENTIAL_STORE", `cannot use ${path}: ${reason(cause)}`, {
      cause,
    });
  }
  const refuse = (why: string, fix: string) => {
    throw new ContractpinError(
      "CREDENTIAL_STORE",
      `refusing ${path}, which should hold contractpin's credentials: ${why} (${fix})`,
    );
  };
  const isKind = kind === "file" ? stats.isFile() : stats.isDirectory();
  if (stats.isSymbolicLink() || !isKind) refuse(`it is not a ${kind}`, "remove it");
  if (uid !== undefined && stats.uid !== uid) refuse("another user owns it", "remove it");
  if ((stats.mode & 0o077) !== 0) {
    const mode = (stats.mode & 0o777).toString(8).padStart(4, "0");
    refuse(`its mode is ${mode}`, `chmod ${kind === "file" ? "600" : "700"} it`);
  }
  return true;
}
