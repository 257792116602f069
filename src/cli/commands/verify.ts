import { anyMoved, type ServerFinding } from "../../core/contract/compare.js";
import { verdict } from "../../core/contract/verdict.js";
import { parseAllowedVariables, type AllowedVariables } from "../../core/source/env-allowance.js";
import { ContractpinError } from "../../core/errors.js";
import { mapConcurrent } from "../../engine/concurrency.js";
import { homedir } from "node:os";
import { resolve } from "node:path";
import { checkConfigSet } from "../../config/config-set.js";
import type { Lock } from "../../core/lock/lock.js";
import { verifyServer } from "../../engine/verify.js";
import { failOn, FAIL_ON_OPTIONS } from "../fail-on.js";
import { readLock } from "../../io/lock-file.js";
import { parseCommandArgs } from "../args.js";
import {
  knownServers,
  LOCK_HELP,
  LOCK_OPTIONS,
  READ_HELP,
  READ_OPTIONS,
  readContext,
  lockPath,
} from "../common.js";
import type { Io } from "../io.js";
import { LARGE_INPUT_TOOLS, optimizerOn } from "../jit.js";
import { progress } from "../render/progress.js";
import { writeReports } from "../report-output.js";
import { REPORT_HELP, REPORT_OPTIONS, reportRequest } from "../report-request.js";
import { lockInputs, refuseClobber, type ReadFile } from "../report-targets.js";
import { lockWords, shellWord } from "../render/shell.js";
import { displayName } from "../render/style.js";

export const help = `Usage: contractpin verify [NAME...] [--server NAME]... [--allow-new] [--fail-on SEVERITY]
                          [--allow-empty]
                          [--allow-env VAR[=ORIGIN][,...]]... [--verbose]
                          [--format text|json|sarif|github|markdown] [--output FILE]
                          [--sarif FILE] [options]

Reads every pinned server (or only the named ones) and compares it with the
lock: each tool, and with a surface pin its instructions, prompts and resource
templates, is unchanged, drifted, added or removed. Prints one line per server
and, for what moved, a word diff and the findings (rule id, severity) that the
contract snapshots beside the lock make possible. Any drift fails, in every
format, unless --fail-on says otherwise. OAuth servers use the credential
'contractpin login' stored. Under GitHub Actions, all output is enclosed in a
::stop-commands:: block, so that no server text becomes a workflow command.
A server whose lock entry records its artifact (--artifacts on add, init,
update) has its registry asked first, as outdated asks it: other contents for
the pinned version fail at critical (artifact-changed) and the server is not
started; a registry that cannot be asked is exit 1 (artifact-unchecked). An
image is then run by the recorded digest.

It also reads, offline, the project's client configs (those init finds in the
current directory and those the lock covers, configs.files) and fails on a
server they define that the lock does not pin (nor names in configs.unpinned),
on a pinned server whose entry launches anything else (command, arguments, URL,
cwd, env, headers; a wrapped entry is read as the server it wraps), on a
guarded server that another entry reaches around the guard, and on a covered
config that cannot be read. It checks what a client is asked to launch, not
what a server's code does. --fail-on does not lower these.
More: docs/reports.md (what it shows, formats), docs/ci.md (GitHub Action),
docs/configs.md (the config set),
docs/oauth.md (logins in CI), docs/findings.md (the rules).

Options:
  --server NAME        verify only this server (repeatable; same as a NAME)
  --allow-new          report added tools and prompts without failing
  --fail-on SEVERITY   fail a drift only when a finding is at SEVERITY or above
                       (critical, high, medium, low); unreadable servers, added
                       tools and unclassified drifts still fail
  --allow-empty        pass a lock that pins no servers (without it, exit 2)
  --allow-env VARS     the only \${VAR}s the lock may use (comma-separated; default
                       $CONTRACTPIN_ALLOW_ENV, else any); VAR=ORIGIN allows VAR
                       only for an HTTP server at that origin
  --verbose            list unchanged tools too, and every changed value whole
${REPORT_HELP}
${LOCK_HELP}
${READ_HELP}
  --help               show this help

Exit codes: 0 every server matches and the configs launch only what the lock
pins; 1 a drift, a config finding, a server or covered config could not be
read, or a server's registry serves other contents or could not be asked
("could not check" never passes); 2 could not run (arguments, lock, no
servers).

Examples:
  contractpin verify
  contractpin verify memory --format github --sarif contractpin.sarif
  contractpin verify --allow-env SEARCH_TOKEN=https://mcp.example.com --fail-on high
`;

export async function run(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    "verify",
    args,
    {
      ...LOCK_OPTIONS,
      ...READ_OPTIONS,
      server: { type: "string", multiple: true },
      "allow-new": { type: "boolean" },
      ...FAIL_ON_OPTIONS,
      "allow-empty": { type: "boolean" },
      "allow-env": { type: "string", multiple: true },
      ...REPORT_OPTIONS,
      verbose: { type: "boolean" },
    },
    Infinity,
  );
  const reports = reportRequest(values);
  const lockFile = await lockPath(values, io);
  const { ctx, concurrency } = readContext(lockFile, values, io);
  const lock = await readLock(lockFile);
  // `verify a b` means `verify --server a --server b`.
  const selected = [...(values.server ?? []), ...positionals];
  const names = selected.length > 0 ? [...new Set(selected)] : Object.keys(lock.servers).sort();
  knownServers(names, lock.servers, lockFile);
  refuseClobber(reports, readFiles(lockFile, ctx.lockDir, names, lock.servers), "verify");
  // Checking nothing is not a pass: a lock emptied by mistake (or by a hostile
  // change) must not turn CI green.
  if (names.length === 0 && values["allow-empty"] !== true) {
    throw new ContractpinError(
      "LOCK_EMPTY",
      `${lockFile} pins no servers, so there is nothing to verify; pin one with 'contractpin add' or 'contractpin init', or pass --allow-empty`,
    );
  }
  // The client configs, offline, before any server is started (SPEC.md 12).
  const configs = await checkConfigSet(lock, {
    projectDir: process.cwd(),
    lockDir: ctx.lockDir,
    home: homedir(),
    user: false,
  });
  const allowNew = values["allow-new"] === true;
  const failOnSeverity = failOn(values["fail-on"], "verify");
  const allowEnv = allowedVariables(values["allow-env"], ctx.env["CONTRACTPIN_ALLOW_ENV"]);
  // Progress only when servers are live: reading files is instant.
  const live = names.some((name) => lock.servers[name]!.transport !== "file");
  // Live servers or a large lock make a long run, where the optimizing compiler pays off (jit.ts).
  const pinnedTools = names.reduce((n, name) => n + lock.servers[name]!.tool_count, 0);
  if (live || pinnedTools >= LARGE_INPUT_TOOLS) optimizerOn();
  const report = live ? progress(names, io, (text) => void io.err(text)) : undefined;
  const verified = await mapConcurrent(names, concurrency, async (name) => {
    // process.hrtime, not performance.now(): the global `performance` loads
    // perf_hooks, a few milliseconds of every run.
    const started = process.hrtime.bigint();
    const result = await verifyServer(name, lock.servers[name]!, ctx, {
      allowNew,
      ...(allowEnv === undefined ? {} : { allowEnv }),
    });
    // A read cut short by Ctrl-C or SIGTERM is not a server that could not be read.
    if (io.signal?.aborted !== true)
      report?.done(result.finding, Number(process.hrtime.bigint() - started) / 1e9);
    return result;
  });
  // An interrupt cut the reads short: the run has no verdict (exit 2), so no
  // report (nor --output, --sarif, the job summary) may claim one.
  io.signal?.throwIfAborted();
  const findings = verified.map((v) => v.finding);
  const strict = verdict(findings, undefined, { allowNew });
  // A clean run loads none of the classifiers and never reads the snapshots.
  const moved = verified.some(
    (v) =>
      v.finding.status === "unreachable" ||
      anyMoved(v.finding) ||
      (v.serverFindings?.length ?? 0) > 0,
  );
  // Said once: a server pinned on its tools only that serves more (SPEC.md 10.6).
  const more = verified
    .filter((v) => v.servesMore === true)
    .map((v) => displayName(v.finding.name));
  if (more.length > 0) {
    await io.err(
      `contractpin: note: ${more.length === 1 ? "server" : "servers"} ${more.join(", ")} ${more.length === 1 ? "serves" : "serve"} instructions, prompts or resources that the lock does not pin (it pins ${more.length === 1 ? "its" : "their"} tools only); pin them with: contractpin update${lockWords(values.lock)}\n`,
    );
  }
  const explained = moved
    ? await (
        await import("../../engine/explain.js")
      ).explainDrift(lockFile, lock.servers, verified, ctx.warn)
    : undefined;
  // --fail-on: a drift whose findings are all below the threshold is reported, not failed.
  const serversCode =
    failOnSeverity === undefined
      ? strict
      : verdict(findings, explained, { allowNew, failOn: failOnSeverity });
  // A config finding fails the run whatever --fail-on says, as an unreadable server does.
  const exitCode = configs.findings.length > 0 ? Math.max(serversCode, 1) : serversCode;
  const passed = strict === 1 && exitCode === 0;
  await writeReports(
    {
      lockFile,
      findings,
      exitCode,
      allowNew,
      verbose: values.verbose === true,
      ...(explained === undefined ? {} : { explained }),
      configs,
      ...acceptCommand(findings, values.lock),
    },
    reports,
    io,
  );
  if (passed) {
    const note = `contractpin: PASS with --fail-on ${failOnSeverity}: every finding of the drift above is below ${failOnSeverity} (exit 0)\n`;
    await (reports.format === "text" && reports.output === undefined ? io.out : io.err)(note);
  }
  return exitCode;
}

/** The files verify reads: the lock, its snapshots, and the dumps of the selected file servers. */
function readFiles(
  lockFile: string,
  lockDir: string,
  names: readonly string[],
  servers: Lock["servers"],
): ReadFile[] {
  const files = lockInputs(lockFile);
  for (const name of names) {
    const server = servers[name]!;
    if (server.transport === "file") {
      const path = resolve(lockDir, server.path);
      files.push({ path, what: `the dump of server ${displayName(name)}` });
    }
  }
  return files;
}

/**
 * The command that accepts the drift of the servers that drifted, after
 * review (none when no server drifted: an unreachable one cannot be accepted).
 */
function acceptCommand(
  findings: readonly ServerFinding[],
  lockOption: string | undefined,
): { accept?: string } {
  const drifted = findings.filter((f) => f.status === "drift").map((f) => shellWord(f.name));
  if (drifted.length === 0) return {};
  return {
    accept: `to accept the change after reviewing it: contractpin update${lockWords(lockOption)} ${drifted.join(" ")}`,
  };
}

/**
 * The variables a lock may refer to: from --allow-env when given, else from
 * CONTRACTPIN_ALLOW_ENV when it is set (empty: none), else undefined (any).
 */
function allowedVariables(
  flags: string[] | undefined,
  variable: string | undefined,
): AllowedVariables | undefined {
  if (flags !== undefined) return parseAllowedVariables(flags, "--allow-env");
  if (variable !== undefined) return parseAllowedVariables([variable], "CONTRACTPIN_ALLOW_ENV");
  return undefined;
}
