import { anyMoved } from "../../core/contract/compare.js";
import { verdict } from "../../core/contract/verdict.js";
import { ContractpinError } from "../../core/errors.js";
import { notUpgradable, readCandidates, validTarget } from "../../engine/upgrade.js";
import { findOutdated } from "../../engine/outdated.js";
import { readLock } from "../../io/lock-file.js";
import { checkPinTargets } from "../../io/snapshot-record.js";
import { parseCommandArgs } from "../args.js";
import {
  ARTIFACT_OPTIONS,
  knownServers,
  LOCK_HELP,
  LOCK_OPTIONS,
  lockPath,
  READ_HELP,
  READ_OPTIONS,
  readContext,
  repeatCount,
  REPEAT_HELP,
  REPEAT_OPTIONS,
  SNAPSHOT_HELP,
  SNAPSHOT_OPTIONS,
} from "../common.js";
import { EXIT, exitForError } from "../exit-code.js";
import type { Io } from "../io.js";
import { writeReports } from "../report-output.js";
import { REPORT_HELP, REPORT_OPTIONS, reportRequest } from "../report-request.js";
import { lockInputs, refuseClobber } from "../report-targets.js";
import { displayName, sanitizeLine } from "../render/style.js";
import { prepareUpgrade } from "../upgrade-write.js";

export const help = `Usage: contractpin upgrade NAME... [--to VERSION] [--write] [options]
       contractpin upgrade --all [--write] [options]

For each named server that runs a package through a package runner (npx,
npm exec, pnpm dlx, yarn dlx, bunx; uvx, uv tool run, pipx run) or an image
through docker run or podman run, takes the candidate version (--to, else
the one the registry's 'latest' tag names, for Python the highest final
release, for an image the newest tag of the pinned tag's shape, asked as
'contractpin outdated' asks), reads the server with that version exactly as
verify reads a pinned server, and prints verify's report of the pinned
contract against the candidate's, in the same formats. Nothing is written
without --write. An image's candidate is read by starting it, which needs
the container runtime.

With --write, and only when every candidate was read, the lock's command,
the pin and the snapshots change together, and so does the version in each
client config entry that defines what the lock pins under that name (the
project's .mcp.json, .vscode/mcp.json, .cursor/mcp.json; --config names
others, --user adds the user-level ones), with the file rules of wrap:
comments and layout kept, a backup beside it, an atomic write. What the
findings rules find in what it pinned is then printed under 'review:', as
add prints it (on stderr when the report is JSON or SARIF on stdout, so
that stdout parses). The report of what --write takes says ACCEPTED in
every format (exit 0): none of its findings fails the run.

Options:
  --all                every server 'contractpin outdated' lists as outdated
  --to VERSION         the version to read instead of the newest (one exact
                       version: semver for npm, PEP 440 for Python, or an
                       image tag)
  --write              take the candidates: rewrite the lock, snapshots and configs
  --config PATH        also bump the version in this client config (repeatable)
  --user               also the user-level client configs
  --artifacts          with --write, also record what the registry serves for the
                       new version (a server that records its artifact records
                       it again without it; see 'contractpin add --help')
${REPORT_HELP}
${REPEAT_HELP}
${SNAPSHOT_HELP}
${LOCK_HELP}
${READ_HELP}
  --help               show this help

Exit codes:
  0  every candidate's contract equals the pin, or --write took them
  1  a candidate's contract differs (nothing written without --write), or a
     candidate could not be looked up, started or read (nothing written)
  2  contractpin could not run: bad arguments, an unknown NAME, a server that
     runs no package or image from a registry contractpin asks, a missing
     or corrupt lock

Examples:
  contractpin upgrade filesystem
  contractpin upgrade filesystem --to 2026.8.31 --write
  contractpin upgrade --all --write --format markdown --output upgrade.md
`;

export async function run(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    "upgrade",
    args,
    {
      ...LOCK_OPTIONS,
      ...READ_OPTIONS,
      ...REPORT_OPTIONS,
      ...REPEAT_OPTIONS,
      ...SNAPSHOT_OPTIONS,
      all: { type: "boolean" },
      to: { type: "string" },
      write: { type: "boolean" },
      ...ARTIFACT_OPTIONS,
      config: { type: "string", multiple: true },
      user: { type: "boolean" },
    },
    Infinity,
  );
  const usage = (message: string) =>
    new ContractpinError("USAGE", `${message} (see 'contractpin upgrade --help')`);
  const all = values.all === true;
  if (all === positionals.length > 0) throw usage("upgrade needs server NAMEs or --all");
  const toUsage = () => usage("--to takes one exact version (1.2.3) and one server NAME");
  if (values.to !== undefined && (all || positionals.length > 1)) throw toUsage();
  const reports = reportRequest(values, "upgrade");
  const repeat = repeatCount(values);
  const lockFile = await lockPath(values, io);
  const { ctx, concurrency } = readContext(lockFile, values, io);
  const lock = await readLock(lockFile);
  refuseClobber(reports, lockInputs(lockFile), "upgrade");
  if (values.write === true) checkPinTargets(lockFile, values["no-snapshot"] !== true);
  let names = [...new Set(positionals)];
  knownServers(names, lock.servers, lockFile);
  for (const name of names) {
    const why = notUpgradable(lock.servers[name]!);
    if (why !== undefined) throw usage(`server ${displayName(name)} cannot be upgraded: ${why}`);
    if (values.to !== undefined && !validTarget(lock.servers[name]!, values.to)) throw toUsage();
  }
  if (all) {
    const entries = await findOutdated(
      Object.keys(lock.servers).sort(),
      lock.servers,
      ctx,
      concurrency,
    );
    // An unsupported runner is named, never passed over in silence; a registry that
    // could not be asked is read as a candidate again, so that it fails the run (exit 1).
    for (const e of entries)
      if (e.status === "unsupported")
        ctx.warn(`${e.name}: not checked: ${e.pkg.invocation}: ecosystem not supported yet`);
    names = entries
      .filter((e) => e.status === "outdated" || e.status === "unreachable")
      .map((e) => e.name);
  }
  const candidates = await readCandidates(names, lock.servers, ctx, concurrency, values.to);
  io.signal?.throwIfAborted();
  for (const c of candidates) {
    await io.err(
      `contractpin: ${displayName(c.name)}: ${sanitizeLine(`${c.pkg.name} ${c.from ?? "(not pinned)"} -> ${c.to}`)}\n`,
    );
  }
  if (candidates.length === 0) {
    await io.err(
      "contractpin: every selected server is at the candidate version; nothing to upgrade\n",
    );
    return EXIT.OK;
  }
  const verified = candidates.map((c) => c.verified);
  const findings = verified.map((v) => v.finding);
  const differs = verdict(findings, undefined, { allowNew: false });
  const moved = findings.some((f) => f.status === "unreachable" || anyMoved(f));
  const explained = moved
    ? await (
        await import("../../engine/explain.js")
      ).explainDrift(lockFile, lock.servers, verified, ctx.warn)
    : undefined;
  const unreadable = findings.some((f) => f.status === "unreachable");
  // Everything that can refuse the write is read and checked before the report,
  // so that the report says what happens: ACCEPTED, or the refusal's exit code.
  let commit: (() => Promise<void>) | undefined;
  let refused: unknown;
  if (values.write === true && !unreadable) {
    try {
      commit = await prepareUpgrade(lockFile, lock, candidates, {
        ctx,
        concurrency,
        repeat,
        snapshot: values["no-snapshot"] !== true,
        configs: values.config,
        user: values.user === true,
        artifacts: values.artifacts === true,
        lock: values.lock,
        // JSON or SARIF on stdout stays one document that parses: what --write does goes to stderr.
        io:
          reports.output === undefined && (reports.format === "json" || reports.format === "sarif")
            ? { ...io, out: io.err, color: false }
            : io,
      });
    } catch (err) {
      refused = err;
    }
  }
  const exitCode =
    commit !== undefined
      ? EXIT.OK
      : refused !== undefined
        ? exitForError(refused, false).code
        : differs;
  await writeReports(
    {
      lockFile,
      findings,
      exitCode,
      allowNew: false,
      verbose: false,
      ...(commit === undefined ? {} : { written: true }),
      ...(explained === undefined ? {} : { explained }),
      upgrades: candidates.map((c) => ({
        server: c.name,
        package: c.pkg.name,
        ...(c.from === undefined ? {} : { from: c.from }),
        to: c.to,
      })),
    },
    reports,
    io,
  );
  if (refused !== undefined) throw refused;
  if (values.write === true && unreadable) {
    await io.err("contractpin: a candidate could not be read; nothing was written\n");
  }
  if (commit === undefined) return exitCode;
  await commit();
  return EXIT.OK;
}
