import { runCheck } from "../../engine/check.js";
import { parseCommandArgs } from "../args.js";
import { LOCK_HELP, LOCK_OPTIONS, lockPath } from "../common.js";
import { EXIT } from "../exit-code.js";
import type { Io } from "../io.js";
import { renderCheck } from "../render/check-text.js";
import { sanitizeLine } from "../render/style.js";

export const help = `Usage: contractpin check [--user] [options]

Checks the lock and the contract snapshots beside it, offline: no server is
started, nothing is fetched, and no file the lock names (a file server's dump)
is read. Fast enough for a pre-commit hook.

  - the lock is valid: its format, every key, and every server's digest and
    tool_count against its tools (as every command reads it);
  - the snapshots (contractpin.contracts.json for contractpin.lock) agree with
    it: each entry's digest is the lock's digest of that tool, and the lock's
    field digests follow from the entry; no entry for a server or tool the lock
    does not pin; no pinned tool without an entry; the same for each pinned
    part of a server's surface (instructions, prompts, resource templates,
    resources), under "surfaces";
  - neither holds a credential: the lock's server definitions by the rules
    'add' applies before it writes one, the snapshots' strings by the shape of
    tokens and keys. Each is named by where it is, never by its value;
  - the project's client configs (those init finds in the current directory,
    and those the lock covers: configs.files) launch only what the lock pins:
    a server the lock neither pins nor names in configs.unpinned, a pinned
    server whose entry launches anything else, a guarded server reachable
    around the guard, or a covered config that cannot be read is a finding
    (docs/configs.md). With --user, the user-level configs of every client
    contractpin knows too (Claude Desktop, Claude Code, Cursor, Windsurf,
    Codex, Gemini CLI, Zed, Continue, Cline), each finding naming its file.
    What a server's code does is not checked.

No snapshot file is not a failure (they are optional: --no-snapshot); a note
on stderr says so, and that the lock's field digests then cannot be checked:
they are advisory, so verify and diff report a drifted tool's changed fields
as unknown unless both its contracts are known.

Options:
  --user               also check this machine's user-level client configs
${LOCK_HELP}
  --help               show this help

Exit codes: 0 the lock is valid, agrees with its snapshots, and neither holds a
credential; 1 a problem was found, one line each on stdout: a snapshot entry
that is stale, missing or not pinned, a snapshot file that is corrupt, a
field digest of the lock that does not follow from its pinned contract, or a
credential in either file (found, so 1: the check itself ran), a config
finding, or a config the lock covers that is missing or does not parse; 2 contractpin
could not check: no lock, a corrupt lock or one of an unsupported format, a
snapshot file that cannot be read or is of an unsupported format, bad
arguments.

Examples:
  contractpin check
  contractpin check --lock ci/contractpin.lock
  contractpin check --user
`;

export async function run(args: string[], io: Io): Promise<number> {
  const { values } = parseCommandArgs(
    "check",
    args,
    { ...LOCK_OPTIONS, user: { type: "boolean" } },
    0,
  );
  const checked = await runCheck(await lockPath(values, io), { user: values.user === true });
  const { result } = checked;
  if (!result.snapshot && result.tools > 0) {
    await io.err(
      `contractpin: note: no contract snapshots (${sanitizeLine(checked.snapshotPath)}): nothing to compare the lock with, so the lock's field digests cannot be checked (verify and diff report a drifted tool's changed fields unknown); snapshots are optional, and written when pinning without --no-snapshot\n`,
    );
  }
  await io.out(renderCheck(checked, values.lock));
  return result.problems.length === 0 && checked.configs.findings.length === 0
    ? EXIT.OK
    : EXIT.DRIFT;
}
