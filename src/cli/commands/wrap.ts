import type { Io } from "../io.js";
import { LOCK_HELP } from "../common.js";
import { CONFIG_HELP, runRewrite } from "../wrap-command.js";

export const help = `Usage: contractpin wrap [--from PATH]... [--user] [--dry-run] [--lock PATH]

Rewrites MCP client configs so that each server the lock pins is launched
through 'contractpin guard NAME --lock LOCK'. In a project config a team
commits (.mcp.json, .vscode/mcp.json, .cursor/mcp.json) that is the project's
installed contractpin, run by node from the project's node_modules (not
npx, which loads npm first, about a second on every start): 'node -e SHIM
node_modules/contractpin/dist/bin/contractpin.cjs guard NAME --lock
contractpin.lock' in .mcp.json; the same with \${workspaceFolder}/ before
both paths in .vscode/ and .cursor/ (SHIM, one line of JavaScript, says to
run npm ci when the script is not installed). That works in every clone; it needs
contractpin in node_modules and the lock in the project, else a note says
why the entries name this machine's paths. Other configs run this node and this contractpin
by absolute path, with the lock's absolute path. An entry is wrapped when its
name is a server of the lock and it defines exactly what the lock pins
(imported as init imports it: command, args, env, cwd, or url and headers).
An HTTP entry becomes a stdio entry that launches the guard, which connects
to the server over HTTP. The guard gets, in the entry's env, the variables the
lock refers to, spelled as the config spelled them.

Left alone, and listed: servers the lock does not pin, and entries that
define something else than the lock pins (wrapping them would guard another
server). Only the wrapped entries' text changes; comments, key order and
indentation elsewhere stay byte for byte. The entry's original text is kept
in the wrapped entry (env CONTRACTPIN_WRAPPED_ENTRY), so 'contractpin unwrap'
gives back the original bytes even without the backup. Before writing, one
backup is kept in .contractpin-backup/ beside the file (replaced by the next
write; the folder ignores itself for git) and named in the output; the write
is atomic. Wrapping a wrapped entry changes nothing.

Options:
${CONFIG_HELP}
${LOCK_HELP}
  --help               show this help

Exit codes: 0 done, or nothing to do; 1 done, but an entry of a server the
lock pins was left unwrapped (its definition differs from the lock's, it
cannot be edited as written, or it is in a YAML file); 2 could not run: no lock or a corrupt one, a
config that cannot be read or parsed, a config that changed meanwhile, a
config outside the project without --user, bad arguments.

Examples:
  contractpin wrap --dry-run
  contractpin wrap
  contractpin wrap --user --from ~/.cursor/mcp.json
`;

export function run(args: string[], io: Io): Promise<number> {
  return runRewrite("wrap", args, io);
}
