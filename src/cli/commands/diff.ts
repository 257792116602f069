import { verdict } from "../../core/contract/verdict.js";
import { ContractpinError } from "../../core/errors.js";
import { diffSides } from "../../engine/diff.js";
import { readDiffSide } from "../../io/diff-side.js";
import { parseCommandArgs } from "../args.js";
import { warner } from "../common.js";
import type { Io } from "../io.js";
import { writeReports } from "../report-output.js";
import { REPORT_HELP, REPORT_OPTIONS, reportRequest } from "../report-request.js";
import { refuseClobber, type ReadFile } from "../report-targets.js";
import { snapshotPath } from "../../io/snapshot-file.js";

export const help = `Usage: contractpin diff OLD NEW [--server NAME]... [--old-contracts FILE]
                        [--new-contracts FILE] [--verbose]
                        [--format text|json|sarif|github|markdown] [--output FILE]
                        [--sarif FILE]

Compares two locks, or a lock and a tools/list dump, or two dumps, offline:
no server is started. Prints the report verify prints, with OLD in the place
of the lock and NEW in the place of the live servers: each tool drifted,
added or removed, a word diff of each changed description, schema and
annotation changes by JSON Pointer, and classified findings (docs/findings.md).
Between two locks, a change in how a server is reached (its command, env,
cwd, url, headers or path) is a server-source-changed finding, and the same
package and version recorded with another artifact (--artifacts: a re-pushed
tag or replaced file accepted) is artifact-changed.

OLD and NEW are each a lock, a tools/list dump (the forms 'contractpin digest'
accepts), or - for standard input (one side at most). A dump is one server:
it is compared with the lock's only server, or the one --server names.

What changed in the words needs the pinned contracts: a lock's are read from
the snapshots file beside it (X.lock gives X.contracts.json, so save both
under matching names), or from --old-contracts / --new-contracts. Without
them, with one warning, a drifted tool's changed fields are unknown: the
field digests a lock records are advisory (a hand-edited lock can make them
name any field), so the fields they name are shown only as unconfirmed.

Reviewing a pull request:
  git show origin/main:contractpin.lock > /tmp/old.lock
  git show origin/main:contractpin.contracts.json > /tmp/old.contracts.json
  contractpin diff /tmp/old.lock contractpin.lock

Options:
  --server NAME        compare only this server (repeatable); with a dump, the
                       lock's server the dump is compared with
  --old-contracts FILE
                       the snapshots of OLD (default: beside it)
  --new-contracts FILE
                       the snapshots of NEW (default: beside it)
  --verbose            list every tool, unchanged ones included, and show every
                       changed value whole (by default a long one is split
                       into its members)
${REPORT_HELP}
                       The JSON report is verify's, with "old" and "new" naming
                       the two sides; SARIF results and annotations point into NEW
  --help               show this help

Exit codes:
  0  the two sides pin the same contracts (and reach the servers the same way)
  1  they differ: a tool drifted, was added or was removed, or a server's source changed
  2  contractpin could not run: bad arguments, a side that is neither a lock nor
     a dump, an unknown --server

Examples:
  git show main:contractpin.lock > /tmp/base.lock && contractpin diff /tmp/base.lock contractpin.lock
  contractpin diff before.json after.json --format markdown --output drift.md
  contractpin diff old.lock new.lock --server memory --verbose
`;

export async function run(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    "diff",
    args,
    {
      server: { type: "string", multiple: true },
      "old-contracts": { type: "string" },
      "new-contracts": { type: "string" },
      ...REPORT_OPTIONS,
      verbose: { type: "boolean" },
    },
    2,
  );
  const reports = reportRequest(values, "diff");
  if (positionals.length !== 2) {
    throw new ContractpinError(
      "USAGE",
      "diff takes two files, OLD and NEW (see 'contractpin diff --help')",
    );
  }
  const [oldPath, newPath] = positionals as [string, string];
  if (oldPath === "-" && newPath === "-") {
    throw new ContractpinError("USAGE", "only one side of diff can be standard input (-)");
  }
  refuseClobber(reports, diffInputs(oldPath, newPath, values), "diff");
  const old = await readDiffSide(oldPath, values["old-contracts"]);
  const next = await readDiffSide(newPath, values["new-contracts"]);
  const { findings, explained } = await diffSides(old, next, values.server ?? [], warner(io));
  const exitCode = verdict(findings, undefined, { allowNew: false });
  await writeReports(
    {
      // What SARIF results and annotations point into: a lock, NEW when both are.
      lockFile: next.kind === "dump" && old.kind === "lock" ? oldPath : newPath,
      old: oldPath,
      new: newPath,
      findings,
      explained,
      exitCode,
      allowNew: false,
      verbose: values.verbose === true,
    },
    reports,
    io,
  );
  return exitCode;
}

/** The files diff may read: each side, the snapshots beside it, and the named snapshot files. */
function diffInputs(
  oldPath: string,
  newPath: string,
  values: { "old-contracts"?: string | undefined; "new-contracts"?: string | undefined },
): ReadFile[] {
  const files: ReadFile[] = [];
  for (const [side, path, contracts] of [
    ["OLD", oldPath, values["old-contracts"]],
    ["NEW", newPath, values["new-contracts"]],
  ] as const) {
    if (path !== "-") {
      files.push({ path, what: side });
      files.push({ path: snapshotPath(path), what: `the contract snapshots beside ${side}` });
    }
    if (contracts !== undefined) files.push({ path: contracts, what: `the ${side} contracts` });
  }
  return files;
}
