import { lstatSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, resolve } from "node:path";
import { checkConfigSet, type ConfigReport } from "../config/config-set.js";
import { ContractpinError, isContractpinError } from "../core/errors.js";
import { getMember, isJsonObject } from "../core/json/json-value.js";
import { MAX_LOCK_BYTES } from "../core/limits.js";
import { checkLock, type CheckResult, type SnapshotDocument } from "../core/lock/lock-check.js";
import { parseJson } from "../core/json/strict-json.js";
import { readLock } from "../io/lock-file.js";
import { readRegularFile, reason } from "../io/read-input.js";
import { positionOf } from "../core/json/text-position.js";
import { SNAPSHOT_KEY, SNAPSHOT_VERSION, snapshotPath } from "../io/snapshot-file.js";

/** What `contractpin check` read, and what it found. */
export interface CheckRun {
  lockPath: string;
  snapshotPath: string;
  result: CheckResult;
  /** The client configs checked against the lock (SPEC.md 12). */
  configs: ConfigReport;
}

/**
 * Reads the lock (validated: LOCK_MISSING, LOCK_CORRUPT and the unsupported
 * formats are thrown, exit 2) and the contract snapshots beside it, and
 * checks them (src/core/lock/lock-check.ts). Offline: no server is started and no
 * file the lock names (a `file` server's dump) is read.
 *
 * A snapshot file that cannot be read at all (not a regular file, over the
 * lock's size limit, no permission), or that is of a format this contractpin
 * does not know, is INPUT_UNREADABLE (exit 2): nothing can be said about it.
 * One that is read but is not strict JSON, or not a snapshot file, is a
 * problem found (exit 1).
 */
export async function runCheck(
  lockPath: string,
  options: { user?: boolean; home?: string } = {},
): Promise<CheckRun> {
  const lock = await readLock(lockPath);
  const path = snapshotPath(lockPath);
  const result = checkLock(lock, readDocument(path));
  const configs = await checkConfigSet(lock, {
    projectDir: process.cwd(),
    lockDir: dirname(resolve(lockPath)),
    home: options.home ?? homedir(),
    user: options.user === true,
  });
  return { lockPath, snapshotPath: path, result, configs };
}

function readDocument(path: string): SnapshotDocument {
  try {
    // lstat: a dangling symbolic link is a file that cannot be read, not an absent one.
    lstatSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return { state: "absent" };
  }
  let bytes: Uint8Array;
  try {
    bytes = readRegularFile(path, MAX_LOCK_BYTES);
  } catch (cause) {
    const why = (cause as { why?: string }).why ?? reason(cause);
    throw new ContractpinError(
      "INPUT_UNREADABLE",
      `${path}: cannot read the contract snapshots: ${why}`,
      { cause },
    );
  }
  let value;
  try {
    value = parseJson(bytes);
  } catch (err) {
    if (!isContractpinError(err)) throw err;
    return { state: "corrupt", reason: `${err.message}${positionOf(err.message, bytes)}` };
  }
  const version = isJsonObject(value) ? getMember(value, SNAPSHOT_KEY) : undefined;
  if (typeof version === "string" && version !== SNAPSHOT_VERSION) {
    throw new ContractpinError(
      "INPUT_UNREADABLE",
      `${path}: contract snapshots of format ${JSON.stringify(version)} are not supported (this contractpin reads format "${SNAPSHOT_VERSION}")`,
    );
  }
  return { state: "parsed", value };
}
