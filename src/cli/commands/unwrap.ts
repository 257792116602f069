import type { Io } from "../io.js";
import { CONFIG_HELP, runRewrite } from "../wrap-command.js";

export const help = `Usage: contractpin unwrap [--from PATH]... [--user] [--dry-run]

Restores every entry that 'contractpin wrap' rewrote, from the original text
it kept in the entry itself (env CONTRACTPIN_WRAPPED_ENTRY): after wrap then
unwrap the file is byte for byte what it was. No lock is needed. Entries that
are not wrapped are left alone. A backup is kept first, as for wrap.

Options:
${CONFIG_HELP}
  --help               show this help

Exit codes: 0 done, or nothing to do; 1 a wrapped entry could not be
restored (it cannot be edited as written); 2 could not run: a config that
cannot be read or parsed, a config that changed meanwhile, a config
outside the project without --user, bad arguments.

Examples:
  contractpin unwrap --dry-run
  contractpin unwrap --from .cursor/mcp.json
`;

export function run(args: string[], io: Io): Promise<number> {
  return runRewrite("unwrap", args, io);
}
