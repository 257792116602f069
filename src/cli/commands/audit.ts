import { atOrAbove } from "../../core/findings/rules.js";
import type { Severity } from "../../core/findings/rules.js";
import { runAudit } from "../../engine/audit.js";
import { parseCommandArgs } from "../args.js";
import { LOCK_HELP, LOCK_OPTIONS, lockPath, readContext } from "../common.js";
import { EXIT } from "../exit-code.js";
import { failOn, FAIL_ON_OPTIONS } from "../fail-on.js";
import type { Io } from "../io.js";
import { renderAuditJson, renderAuditText } from "../render/audit-text.js";

/** The default of --fail-on: what can widen what a tool does, or addresses the model. */
export const DEFAULT_FAIL_ON: Severity = "high";

export const help = `Usage: contractpin audit [--fail-on SEVERITY] [--json] [options]

Runs the findings rules (docs/findings.md), offline, over the contracts the
lock pins, as the contract snapshots beside it keep them
(contractpin.contracts.json for contractpin.lock): everything the rules would
find if each server had been empty before, such as hidden characters,
"<IMPORTANT>" markup, a ~/.ssh path or "do not tell the user" in a tool that
was poisoned from the start. No server is started. A server run through a
package runner without an exact version (npx -y pkg, uvx pkg, docker run
image or image:latest) is a package-runner-unpinned finding: for it alone the
registry is asked, as 'contractpin outdated' asks it, for the version that
would run now (a registry that cannot be asked is said so in the finding).
'init', 'add' and 'update' print the same findings for what they pin.

Options:
  --fail-on SEVERITY   exit 1 when anything at this severity or above is found:
                       critical, high, medium or low (default ${DEFAULT_FAIL_ON})
  --json               one JSON object (format contractpin-audit/1) on stdout
${LOCK_HELP}
  --help               show this help

Exit codes: 0 nothing at or above the threshold was found; 1 something was;
2 contractpin could not audit: no lock, a corrupt lock, a lock that pins no
servers, no snapshot file or one that cannot be used, a pinned tool with no
snapshot matching the lock (pinned with --no-snapshot, or the file is stale:
re-pin with 'contractpin update'), bad arguments. A tool that cannot be read
is never reported clean.

Examples:
  contractpin audit                      fail on critical or high findings
  contractpin audit --fail-on medium     fail on medium findings too
  contractpin audit --json > audit.json  for a CI step or a dashboard
`;

export async function run(args: string[], io: Io): Promise<number> {
  const { values } = parseCommandArgs(
    "audit",
    args,
    { ...LOCK_OPTIONS, ...FAIL_ON_OPTIONS, json: { type: "boolean" } },
    0,
  );
  const threshold = failOn(values["fail-on"], "audit") ?? DEFAULT_FAIL_ON;
  const lockFile = await lockPath(values, io);
  const { ctx, concurrency } = readContext(lockFile, {}, io);
  const audited = await runAudit(lockFile, { ctx, concurrency });
  const found = audited.servers.some((s) => s.findings.some((f) => atOrAbove(f, threshold)));
  const exitCode = found ? EXIT.DRIFT : EXIT.OK;
  await io.out(
    values.json === true
      ? renderAuditJson(audited, threshold, exitCode)
      : renderAuditText(audited, threshold, exitCode, io.color, values.lock),
  );
  return exitCode;
}
