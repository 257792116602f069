import { earlyServersEnded } from "../../guard/faces/early-server.js";
import { runGuard, type GuardOptions } from "../../guard/serve.js";
import { LOCK_HELP, lockPath, readContext } from "../common.js";
import type { Io } from "../io.js";
import { guardArgs } from "../guard-args.js";

export const help = `Usage: contractpin guard NAME [--lock PATH] [--allow-new]
                         [--on-drift=withhold|block|graded [--withhold-at SEVERITY]]
                         [--log FILE] [--timeout SECONDS] [--max-message-mib N]
                         [--oauth-state-out FILE]
                         [--listen HOST:PORT [--listen-any]]

An MCP server over stdio that a client launches in place of the server NAME
(or, with --listen, over Streamable HTTP for clients that connect by URL).
It starts NAME exactly as the lock defines it (same environment rules and
process-group cleanup as verify; an image whose artifact the lock records,
--artifacts, runs by that digest), or connects to it over Streamable HTTP, and
relays every message both ways, ids and bytes unchanged, except:
  - tools/list results: each tool is checked against the lock by name and
    digest; drifted and unpinned tools are withheld (cut out of the served
    bytes, nextCursor and the rest kept)
  - tools/call for a tool not admitted: answered by the guard with error
    -32602 "Unknown tool: NAME" (reason and digests in data); never forwarded.
    A call for a tool not yet seen listed makes the guard list every page first
  - notifications/tools/list_changed: the guard lists and checks every page
    again, then forwards it (and advertises tools.listChanged to the client).
    Under protocol 2026-07-28 it arrives on subscriptions/listen streams, and
    the guard opens one of its own, so it hears changes whatever the client does
  - the initialize (server/discover) result: instructions that are not what
    the lock pins are removed, so the model never reads them (one line)
  - prompts/list and resources/templates/list (and resources/list when the
    lock pins resources, add --resources): checked and withheld as tools are;
    prompts/get of a prompt not admitted is refused as a tool's call; with
    resources pinned, so is resources/read of a URI the server lists and the
    guard withheld (a URI it does not list, one a template makes, is read).
    notifications/prompts/list_changed and resources/list_changed: as tools'
  - a lock entry that pins only tools (a version 1 lock, --tools-only): the
    guard cannot check the rest, so it removes the instructions and withholds
    every prompt and template (resources are relayed); one line says that
    'contractpin update' pins them
A server behind OAuth is read with verify's credential: the stored login of
'contractpin login NAME', or the lock's auth member (client_credentials, a
refresh token from a variable), sent to the pinned server only; never a
browser. A lock that cannot be read, a server not in it, a server that cannot
be started, or one whose credential is missing or refused (one stderr line
naming the command to run) gives the client errors, never unchecked tools; so
does a lock entry that runs a contractpin guard itself (a guard never starts
a guard: re-pin with 'contractpin init --force'). The lock is read again
whenever it changes; a lock deleted while the guard runs fails closed.
Every withheld tool, prompt, template, resource or instructions, refused
call and dropped message is one line on stderr.

Options:
  --allow-new          admit tools, prompts, templates and resources the lock
                       does not pin (never instructions)
  --on-drift MODE      withhold (default): drop the items that do not match;
                       block: answer the whole list (tools/list, prompts/list,
                       ...) with an error; graded: pass on a drifted item (or
                       instructions) whose change, classified against its
                       pinned contract in the snapshots as verify --fail-on
                       grades it, has no finding at or above --withhold-at
                       (one line each); withhold the rest, an item the
                       snapshots cannot explain, an added one, and
                       instructions that gain a directive
  --withhold-at SEVERITY  with --on-drift=graded: critical, high (default),
                       medium or low
  --log FILE           also append one JSON line per withheld item, removed
                       instructions, refused call or dropped message
${LOCK_HELP}
  --timeout SECONDS    how long the guard waits for each page of its own
                       list requests (default 30)
  --max-message-mib N  refuse a message larger than N MiB (default 64); with
                       --listen, also a request body (HTTP 413), and the most
                       the server's messages may take together while they
                       wait for a client with no stream open (the oldest past
                       it, or past 1,000 messages, are dropped)
  --oauth-state-out FILE  where a refresh token that the authorization server
                       rotates while the guard runs is written (see verify --help)
  --listen HOST:PORT   serve Streamable HTTP at http://HOST:PORT/mcp instead of
                       stdio: 127.0.0.1:PORT or [::1]:PORT (localhost means
                       127.0.0.1; port 0 takes a free port). The URL is printed
                       on stderr. One client session at a time, each with its
                       own server: a new initialize ends a session that holds
                       no connection open, and is refused (409) while one does.
                       A request with an Origin (or, on loopback, a Host) that
                       is not loopback gets 403
  --listen-any         allow --listen on an address that is not loopback
  --help               show this help

Exit codes:
  0  the client closed the session
  1  a stdio server ended, or could not be started; a server's credential
     is missing or was refused
  2  contractpin could not run: bad arguments, a missing or corrupt lock, a
     server the lock does not pin, an address it cannot listen on, interrupted
     (with --listen the guard runs until Ctrl-C, SIGTERM or SIGHUP: exit 2; a
     server that ends or cannot start gives its session's client errors instead)

Examples:
  contractpin guard memory
  contractpin guard memory --on-drift=block --log guard.jsonl
  contractpin guard search --listen 127.0.0.1:8808
`;

export async function run(args: string[], io: Io): Promise<number> {
  try {
    return await guard(args, io);
  } finally {
    // A server the launcher started that the guard did not take (it refused
    // its arguments, could not open its log) is ended now, not at exit.
    await earlyServersEnded();
  }
}

async function guard(args: string[], io: Io): Promise<number> {
  const { name, onDrift, values } = guardArgs(args);
  // Loaded only for --listen: a stdio guard's client waits for its start (docs/guard.md#start-up).
  const listen =
    values.listen === undefined ? undefined : await import("../../guard/faces/listen-http.js");
  const address =
    values.listen === undefined
      ? undefined
      : (await import("../../guard/faces/listen-address.js")).parseListen(
          values.listen,
          values["listen-any"] === true,
        );
  const lockFile = await lockPath(values, io);
  const { ctx } = readContext(lockFile, values, io);
  const common: GuardOptions = {
    server: name,
    lockPath: lockFile,
    allowNew: values["allow-new"] === true,
    onDrift,
    ...(values.log === undefined ? {} : { logFile: values.log }),
    ctx,
    err: (line: string) => void io.err(line),
  };
  if (listen !== undefined && address !== undefined)
    return listen.runListen({ ...common, address });
  process.stdout.on("error", () => undefined); // a client that went away is the end of the session
  return runGuard({
    ...common,
    input: process.stdin,
    output: (text) => void process.stdout.write(text),
  });
}
