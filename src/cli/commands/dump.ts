import { resolve } from "node:path";
import { ContractpinError } from "../../core/errors.js";
import type { ServerSource } from "../../core/source/server-source.js";
import { readDump } from "../../engine/dump.js";
import { writeReportAtomic } from "../../io/atomic-write.js";
import { checkoutBases, refuseLinks } from "../../io/write-target.js";
import { readLock } from "../../io/lock-file.js";
import { parseCommandArgs } from "../args.js";
import { knownServers, LOCK_OPTIONS, lockPath, READ_OPTIONS, readContext } from "../common.js";
import { EXIT } from "../exit-code.js";
import { checkUrl, parseEnv, parseHeaders } from "../server-options.js";
import type { Io } from "../io.js";
import { lockInputs, refuseClobber } from "../report-targets.js";

export const help = `Usage: contractpin dump (NAME | --url URL [--header 'K: V']... | -- COMMAND [ARG...])
                        [--env K=V]... [--cwd DIR] [options]

Prints a server's tools/list pages exactly as served: a JSON array holding the
bytes of each page's JSON-RPC response as the server sent them, one page per
line. 'contractpin digest', 'add --file' and a lock's file transport read it
back to the same digests as the live server. Nothing is written to the lock.
With --surface (the default for a NAME whose pin covers more than tools), a
surface dump instead (SPEC.md 10.3): the initialize result and the pages of
every list the server advertises, each as sent, so that 'add --file' of it
pins the whole surface.

Server (exactly one):
  NAME                 a server of the lock, read as verify reads it (its
                       \${VAR} references expanded from the environment)
  --url URL            a Streamable HTTP (or legacy SSE) endpoint
  -- COMMAND [ARG...]  a stdio server, spawned directly (no shell)

Options:
  --header 'K: V'      an HTTP header (repeatable); \${VAR} references are expanded
  --env K=V            environment for a stdio server (repeatable); \${VAR}
                       references are expanded
  --cwd DIR            working directory of a stdio server (default: here)
                       Literal values of --header and --env, credentials included,
                       are used for this read only and never shown
  --lock PATH          the lock that defines NAME (default: contractpin.lock here,
                       or the nearest one above it within the git repository)
  --output FILE        write the dump to FILE (atomically, never through a
                       symbolic link: exit 2) instead of stdout
  --surface            dump instructions, prompts and resource templates too
  --resources          with --surface: resources too
  --timeout SECONDS    give up on the server after this long (default 30)
  --max-message-mib N  refuse a server message larger than N MiB (default 64)
  --oauth-state-out FILE  where a rotated refresh token is written (see verify --help)
  --help               show this help

A server that answers tools/list inside a JSON-RPC batch cannot be dumped
(exit 1); a lock server read from a file is already a dump (exit 2).
Exit codes: 0 dumped; 1 the server could not be read; 2 bad arguments or lock.

Examples:
  contractpin dump memory --output memory.tools.json
  contractpin dump --url https://mcp.example.com/mcp --header 'Authorization: Bearer \${TOKEN}' --surface
  contractpin dump -- npx -y @modelcontextprotocol/server-everything@2026.8.31 stdio
`;

export async function run(args: string[], io: Io): Promise<number> {
  const dashes = args.indexOf("--");
  const own = dashes === -1 ? args : args.slice(0, dashes);
  const command = dashes === -1 ? [] : args.slice(dashes + 1);
  const { values, positionals } = parseCommandArgs(
    "dump",
    own,
    {
      ...LOCK_OPTIONS,
      timeout: READ_OPTIONS.timeout,
      "max-message-mib": READ_OPTIONS["max-message-mib"],
      "oauth-state-out": READ_OPTIONS["oauth-state-out"],
      url: { type: "string" },
      header: { type: "string", multiple: true },
      env: { type: "string", multiple: true },
      cwd: { type: "string" },
      output: { type: "string" },
      surface: { type: "boolean" },
      resources: { type: "boolean" },
    },
    Infinity,
  );
  if (positionals.length > 1) {
    // The arguments are not echoed: one of them may be a credential.
    throw usage(
      "dump takes one NAME; to dump a stdio server, put '--' before its command: contractpin dump -- COMMAND [ARG...]",
    );
  }
  const name = positionals[0];
  const given = [name, values.url, dashes === -1 ? undefined : command].filter(
    (x) => x !== undefined,
  );
  if (given.length !== 1)
    throw usage("dump needs exactly one server: NAME, --url URL, or -- COMMAND [ARG...]");
  if (values.output === "") throw usage("--output needs a file name");
  if (values.output !== undefined)
    refuseLinks(values.output, checkoutBases(), "the dump", "REPORT_WRITE_FAILED");
  if (name === undefined && values.lock !== undefined)
    throw usage("--lock applies only to a NAME of the lock");

  let source: ServerSource;
  let label: string;
  // Values given literally on the command line: used, never shown (each as its
  // label, <header NAME> or <env NAME>), and never written anywhere.
  const literals: Array<[string, string]> = [];
  // The path whose directory relative paths resolve against: the lock's, or here.
  let anchor: string;
  if (name !== undefined) {
    if (name === "") throw usage("dump needs a server NAME");
    if (values.header !== undefined || values.env !== undefined || values.cwd !== undefined)
      throw usage("--header, --env and --cwd define a server; NAME is defined by the lock");
    const lockFile = await lockPath(values, io);
    const lock = await readLock(lockFile);
    knownServers([name], lock.servers, lockFile);
    // `dump NAME --output contractpin.lock` would replace the lock with the dump.
    if (values.output !== undefined) {
      const files = lockInputs(lockFile);
      refuseClobber({ format: "text", output: values.output }, files, "dump", "the dump");
    }
    source = lock.servers[name]!;
    label = name;
    // A server pinned with its surface is dumped whole, resources as pinned.
    const pinned = lock.servers[name]!.surface;
    if (pinned !== undefined) {
      values.surface = true;
      if (pinned.resources !== undefined) values.resources = true;
    }
    anchor = lockFile;
  } else if (values.url !== undefined) {
    checkUrl(values.url, usage);
    const headers = parseHeaders(values.header ?? [], usage);
    for (const [header, value] of Object.entries(headers))
      if (!value.includes("${")) literals.push([value, `<header ${header}>`]);
    source = { transport: "http", url: values.url, headers };
    label = "(--url)";
    anchor = "dump";
  } else {
    if (command.length === 0) throw usage("dump needs a COMMAND after --");
    source = { transport: "stdio", command, cwd: resolve(values.cwd ?? ".") };
    if (values.env !== undefined) {
      source.env = parseEnv(values.env, usage);
      // A reference is shown as itself (guardSecrets hides what it expands to).
      for (const [variable, value] of Object.entries(source.env))
        if (!value.includes("${")) literals.push([value, `<env ${variable}>`]);
    }
    label = "(-- COMMAND)";
    anchor = "dump";
  }
  if (source.transport !== "stdio" && (values.env !== undefined || values.cwd !== undefined))
    throw usage("--env and --cwd apply only to a stdio server (-- COMMAND)");
  if (source.transport !== "http" && values.header !== undefined)
    throw usage("--header applies only to --url");

  const { ctx } = readContext(anchor, values, io);
  if (values.resources === true && values.surface !== true)
    throw usage("--resources applies only with --surface");
  if (values.surface === true) ctx.surface = { resources: values.resources === true };
  const dump = await readDump(label, source, ctx, literals);
  if (values.output === undefined) {
    if (io.data === undefined) await io.out(dump);
    // Under GitHub Actions a dump is JSON data, as verify --json is: inside the
    // stop-commands block, `dump | digest -` got the markers and failed. Its
    // lines cannot start with `::`; `##[` (only ever inside a string) is
    // written `#\u0023[`, the same value.
    else await io.data(dump.replaceAll("##[", "#\\u0023["));
    return EXIT.OK;
  }
  // Never through a symbolic link: checked before any server is read, and again as it is written.
  await writeReportAtomic(values.output, dump, "the dump", checkoutBases());
  await io.err(`contractpin: wrote the dump of ${label} to ${values.output}\n`);
  return EXIT.OK;
}

function usage(message: string): ContractpinError {
  return new ContractpinError("USAGE", `${message} (see 'contractpin dump --help')`);
}
