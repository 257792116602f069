import { ContractpinError } from "../core/errors.js";
import { EXIT, exitForError, INTERRUPTS } from "./exit-code.js";
import { processIo, type Io } from "./io.js";
import { nearest } from "./suggest.js";
import { guardWorkflowCommands } from "./workflow-guard.js";
import { packageVersion } from "../io/version.js";

interface CommandModule {
  help: string;
  run(args: string[], io: Io): Promise<number>;
}

// Each command's module is loaded when it runs: in the bundle (npm run build)
// that defers its set-up, and the MCP client library is loaded only when a
// live server is read (src/sources/read-tools.ts).
const COMMANDS: Record<string, { summary: string; load: () => Promise<CommandModule> }> = {
  init: {
    summary: "pin the servers of your MCP client configs, or re-pin the lock's (--force)",
    load: () => import("./commands/init.js"),
  },
  add: {
    summary: "pin one server (a dump file, an HTTP URL, or a stdio command)",
    load: () => import("./commands/add.js"),
  },
  verify: {
    summary: "compare live servers with the lock; exit 1 on any drift",
    load: () => import("./commands/verify.js"),
  },
  check: {
    summary: "check offline that the lock and its snapshots agree and hold no credential",
    load: () => import("./commands/check.js"),
  },
  audit: {
    summary: "run the findings rules offline over what the lock pins; exit 1 at a threshold",
    load: () => import("./commands/audit.js"),
  },
  update: {
    summary: "re-pin some or all servers and show what changed",
    load: () => import("./commands/update.js"),
  },
  outdated: {
    summary: "list pinned package versions that have a newer release",
    load: () => import("./commands/outdated.js"),
  },
  upgrade: {
    summary: "compare a newer package version's contracts with the lock; --write takes it",
    load: () => import("./commands/upgrade.js"),
  },
  remove: { summary: "drop a server from the lock", load: () => import("./commands/remove.js") },
  diff: {
    summary: "compare two locks or dumps offline and show what changed",
    load: () => import("./commands/diff.js"),
  },
  guard: {
    summary: "serve one pinned server to an MCP client, withholding tools that drifted",
    load: () => import("./commands/guard.js"),
  },
  login: {
    summary: "log in to a remote server that uses OAuth (stored outside the repository)",
    load: () => import("./commands/login.js"),
  },
  logout: {
    summary: "delete the OAuth credential stored for a server",
    load: () => import("./commands/logout.js"),
  },
  wrap: {
    summary: "rewrite MCP client configs to launch each pinned server through the guard",
    load: () => import("./commands/wrap.js"),
  },
  unwrap: {
    summary: "restore the client config entries that wrap rewrote",
    load: () => import("./commands/unwrap.js"),
  },
  dump: {
    summary: "print a server's tools/list pages exactly as served (a dump file)",
    load: () => import("./commands/dump.js"),
  },
  digest: {
    summary: "print the contract digests of a tools/list dump",
    load: () => import("./commands/digest.js"),
  },
  canonicalize: {
    summary: "print the canonical JSON of one value",
    load: () => import("./commands/canonicalize.js"),
  },
};

const HELP = `contractpin: pin the contracts of MCP tools and fail CI when they change

Usage: contractpin <command> [options]

Commands:
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(14)}${c.summary}`)
  .join("\n")}

Run 'contractpin <command> --help' for a command's options.

Exit codes: 0 success (every server matches); 1 drift or an unreachable server;
2 contractpin could not run (bad arguments, bad input, missing or corrupt lock).
Set NO_COLOR to turn colour off; CONTRACTPIN_DEBUG=1 shows stack traces of internal errors.
`;

/** Runs one command line; returns the exit code. */
async function main(argv: string[], io: Io): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    await io.out(HELP);
    return name === undefined ? EXIT.ERROR : EXIT.OK;
  }
  if (name === "--version" || name === "-V") {
    await io.out(`${packageVersion()}\n`);
    return EXIT.OK;
  }
  const entry = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (entry === undefined) {
    const near = nearest(name, Object.keys(COMMANDS));
    throw new ContractpinError(
      "USAGE",
      `unknown command '${name}'${near === undefined ? "" : `; did you mean '${near}'?`} (run 'contractpin --help' for the list)`,
    );
  }
  const command = await entry.load();
  const own = rest.indexOf("--") === -1 ? rest : rest.slice(0, rest.indexOf("--"));
  if (own.includes("--help") || own.includes("-h")) {
    await io.out(command.help);
    return EXIT.OK;
  }
  return command.run(rest, io);
}

// Ctrl-C, SIGTERM and SIGHUP abort the run, so that every server it started
// is ended before it exits (a server runs in a process group of its own, so
// no signal to ours reaches it); a second signal exits at once.
const interrupt = new AbortController();
let settled = false;
// A repeat of the signal within this long is the same interrupt delivered
// twice, not a second Ctrl-C: a terminal signals the whole process group, and
// a parent in it may forward what it got to its child as well (npm exec and
// npm run do, when their shell has exec'd contractpin). Exiting at once on
// it would skip ending the servers and the line that says why.
const REPEAT_MS = 500;
let interruptedAt: bigint | undefined;
for (const signal of INTERRUPTS) {
  process.on(signal, () => {
    const now = process.hrtime.bigint();
    if (interruptedAt !== undefined && now - interruptedAt < BigInt(REPEAT_MS) * 1_000_000n) return;
    // One after the work is done, or a second signal, ends the process at once
    // (a server not yet ended is killed with its group: spawn-server.ts).
    if (settled) process.exit(process.exitCode ?? EXIT.ERROR);
    if (interrupt.signal.aborted) {
      process.stderr.write(`contractpin: interrupted again by ${signal}: exiting at once\n`);
      process.exit(EXIT.ERROR);
    }
    interruptedAt = now;
    interrupt.abort(new ContractpinError("INTERRUPTED", `interrupted by ${signal}`));
  });
}

// Node ends a process whose event loop has nothing left to wait on, even
// while the run's promise is pending, with exit code 0 and nothing printed:
// a wait on something that can no longer happen would pass as all well.
// That is a bug in contractpin, never a result: it exits 2, saying so.
let stalled = false;
process.on("beforeExit", () => {
  if (settled || stalled) return;
  stalled = true;
  process.exitCode = EXIT.ERROR;
  process.stderr.write(
    "contractpin: internal error: the run stopped before it had a result, so nothing was checked (please report it)\n",
  );
});

const base = { ...processIo(), signal: interrupt.signal };
// Under GitHub Actions, a server's text must not become a workflow command.
const guard = process.env["GITHUB_ACTIONS"] === "true" ? guardWorkflowCommands(base) : undefined;
const io = guard ?? base;
main(process.argv.slice(2), io)
  .then((code) => {
    if (interrupt.signal.aborted) throw interrupt.signal.reason;
    process.exitCode = code;
  })
  .catch(async (failure: unknown) => {
    // An interrupt wins over the failure it caused (a server read cut short is
    // not the server's fault): an interrupt is exit 2 in every command.
    const err = interrupt.signal.aborted ? interrupt.signal.reason : failure;
    const { code, message } = exitForError(err, process.env["CONTRACTPIN_DEBUG"] === "1");
    await io.err(`${message}\n`).catch(() => undefined);
    process.exitCode = code;
  })
  .then(() => guard?.end())
  .catch(() => undefined)
  .finally(() => {
    settled = true;
    // Every server was ended before the result was printed; if anything still
    // holds the event loop, it must not hold CI: exit after a short grace.
    setTimeout(() => process.exit(), 3000).unref();
  });
