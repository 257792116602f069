// Where a report may be written. --output, --sarif and --json-file truncate
// their file before anything is compared, so a report file that is one of the
// files the command reads (the lock, its snapshots, a dump) would destroy it,
// and two report files that are one file would keep only the report written
// last. Both are refused as USAGE (exit 2) before any server is read, and so
// is a report file that is, or is in a folder that is, a symbolic link
// (REPORT_WRITE_FAILED, as the write itself would refuse it).
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { ContractpinError } from "../core/errors.js";
import { checkoutBases, refuseLinks } from "../io/write-target.js";
import { snapshotPath } from "../io/snapshot-file.js";
import { sanitizeLine } from "./render/style.js";
import type { ReportRequest } from "./report-request.js";

/** A file the command reads, and what it is, for the error line. */
export interface ReadFile {
  path: string;
  what: string;
}

/** The lock and the contract snapshots beside it: what every lock command reads. */
export function lockInputs(lockFile: string): ReadFile[] {
  return [
    { path: lockFile, what: "the lock" },
    { path: snapshotPath(lockFile), what: "the lock's contract snapshots" },
  ];
}

/**
 * Refuses a report file that is a file the command reads, or that another
 * report option also names with other content, or that is written through
 * a symbolic link.
 *
 * @param inputs the files the command reads (a `-` side is not a file).
 * @param written what is written, for the error line.
 * @throws ContractpinError USAGE naming the option and the file;
 *   REPORT_WRITE_FAILED for a link.
 */
export function refuseClobber(
  request: ReportRequest,
  inputs: readonly ReadFile[],
  command: string,
  written = "the report",
): void {
  const hint = ` (see 'contractpin ${command} --help')`;
  const targets: [flag: string, path: string, format: string][] = [];
  if (request.output !== undefined) targets.push(["--output", request.output, request.format]);
  if (request.sarif !== undefined) targets.push(["--sarif", request.sarif, "sarif"]);
  if (request.jsonFile !== undefined) targets.push(["--json-file", request.jsonFile, "json"]);
  for (const [i, [flag, path, format]] of targets.entries()) {
    for (const input of inputs) {
      if (sameFile(path, input.path)) {
        throw new ContractpinError(
          "USAGE",
          `${flag} ${sanitizeLine(path)} is ${input.what}, which this command reads; writing ${written} there would replace it${hint}`,
        );
      }
    }
    // The same report twice in one file (--format sarif --sarif FILE --output FILE) is harmless.
    for (const [otherFlag, otherPath, otherFormat] of targets.slice(0, i)) {
      if (format !== otherFormat && sameFile(path, otherPath)) {
        throw new ContractpinError(
          "USAGE",
          `${otherFlag} and ${flag} name the same file, ${sanitizeLine(path)}; one report would overwrite the other${hint}`,
        );
      }
    }
    refuseLinks(path, checkoutBases(), written, "REPORT_WRITE_FAILED");
  }
}

/** Whether two paths name one file: the same path, or (when both exist) the same inode. */
function sameFile(a: string, b: string): boolean {
  if (resolve(a) === resolve(b)) return true;
  const sa = stat(a);
  const sb = stat(b);
  return sa !== undefined && sb !== undefined && sa.dev === sb.dev && sa.ino === sb.ino;
}

/** The file's identity, or undefined when it cannot be had: writing it will then say why. */
function stat(path: string): { dev: number; ino: number } | undefined {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}
