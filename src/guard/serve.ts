import { closeSync, openSync, writeSync } from "node:fs";
import { ContractpinError, isContractpinError } from "../core/errors.js";
import type { Redact } from "../core/redact.js";
import { expandReferences, type HttpSource } from "../core/server-source.js";
import { visibleText } from "../core/visible-text.js";
import { guardSecrets } from "../engine/failure.js";
import { stdioSpawnSpec } from "../sources/live/spawn-spec.js";
import { StdioTransport, type ExitStatus, type LineSink } from "../sources/live/stdio-transport.js";
import type { ReadContext } from "../sources/read-tools.js";
import { LockState } from "./lock-state.js";
import { Relay, type GuardEvent, type OnDrift, type Upstream } from "./relay.js";
import { HttpUpstream } from "./upstream-http.js";

/** How `contractpin guard` runs. */
export interface GuardRun {
  server: string;
  lockPath: string;
  allowNew: boolean;
  onDrift: OnDrift;
  /** A file that receives one JSON line per event (appended). */
  logFile?: string;
  ctx: ReadContext;
  /** The client's messages, one per line. */
  input: NodeJS.ReadableStream;
  /** Writes to the client. */
  output: (text: string) => void;
  /** Writes one line (with its newline) to stderr. */
  err: (line: string) => void;
}

/** Exit codes of a guard session. */
const OK = 0;
const SERVER_FAILED = 1;
const CANNOT_RUN = 2;

/**
 * Runs one guarded session until the client closes its end (exit 0), the
 * server ends (exit 1), or contractpin is interrupted (the abort reason is
 * thrown). When the guard cannot start the server (an unreadable lock, a
 * server not in it, a variable that is not set, a command that cannot be
 * started), it says why on stderr and answers every request of the client
 * with that error until the client closes its end: never a tool unchecked.
 */
export async function runGuard(run: GuardRun): Promise<number> {
  let redact: Redact = (text) => text;
  const say = (message: string) => run.err(`contractpin: guard: ${sanitize(redact(message))}\n`);
  const log = run.logFile === undefined ? undefined : openLog(run.logFile);
  const onEvent = (event: GuardEvent) => {
    say(eventLine(event));
    if (log !== undefined) {
      const line = JSON.stringify({ time: new Date().toISOString(), ...event });
      try {
        writeSync(log, `${line}\n`);
      } catch (err) {
        say(`could not write to ${run.logFile}: ${String(err)}`);
      }
    }
  };
  let finish!: (code: number) => void;
  const finished = new Promise<number>((done) => (finish = done));
  const lock = new LockState(run.lockPath, run.server);
  let transport: (Upstream & { close(): Promise<void> }) | undefined;
  const upstream = {
    sendRaw: (bytes: Uint8Array) =>
      transport === undefined
        ? Promise.reject(new Error("the server is not running"))
        : transport.sendRaw(bytes),
  };
  const relay = new Relay(upstream, {
    server: run.server,
    lock,
    allowNew: run.allowNew,
    onDrift: run.onDrift,
    timeoutMs: run.ctx.timeoutMs,
    toClient: (text) =>
      run.output(`${typeof text === "string" ? text : Buffer.from(text).toString("utf8")}\n`),
    onEvent,
    warn: say,
    redact: (text) => redact(text),
  });
  let failedCode: number | undefined;
  let ending = false;
  const failStart = (message: string, code: number) => {
    say(message);
    failedCode = code;
    // What the client is told passes the same redaction as stderr: an
    // expanded ${VAR} (in a command that could not be started) stays hidden.
    relay.fail(sanitize(redact(message)));
  };

  // The client's side: one message a line, read before the server is up so
  // that nothing it sends is lost; handled in order.
  readLines(run.input, run.ctx.maxMessageBytes, {
    line: (line) => relay.fromClient(line),
    tooLong: () => say(`dropped a client message larger than ${run.ctx.maxMessageBytes} bytes`),
    end: () => {
      void relay.drained().then(async () => {
        ending = true;
        await transport?.close();
        finish(failedCode ?? OK);
      });
    },
  });

  try {
    const pinned = await lock.current();
    if (pinned.transport === "file") {
      failStart(
        `server ${run.server} is pinned from a file (transport file): there is no server to guard`,
        CANNOT_RUN,
      );
    } else if (pinned.transport === "http") {
      redact = guardSecrets(run.server, pinned, run.ctx).redact;
      const { url, headers } = httpTarget(pinned, run.ctx.env);
      const max = run.ctx.maxMessageBytes;
      transport = new HttpUpstream(
        url,
        headers,
        {
          message: (bytes) => relay.fromServer(bytes),
          tooLarge: () => {
            failStart(
              `server ${run.server}: the server sent a message larger than ${max} bytes`,
              SERVER_FAILED,
            );
            void transport?.close().then(() => finish(SERVER_FAILED));
          },
          warn: (text) => say(`server ${run.server}: ${text}`),
        },
        max,
      );
    } else {
      const secrets = guardSecrets(run.server, pinned, run.ctx);
      redact = secrets.redact;
      const spec = stdioSpawnSpec(pinned, run.ctx);
      const sink: LineSink = {
        maxMessageBytes: run.ctx.maxMessageBytes,
        receivedLine: (line) => {
          relay.fromServer(line);
          return undefined;
        },
        failTooLarge: () => {
          const err = new Error(
            `the server sent a message larger than ${run.ctx.maxMessageBytes} bytes`,
          );
          failStart(`server ${run.server}: ${err.message}`, SERVER_FAILED);
          void transport?.close().then(() => finish(SERVER_FAILED));
          return err;
        },
        sent: () => undefined,
      };
      const t = new StdioTransport(spec, sink);
      t.onclose = () => {
        // Before start() settled: a command that could not be started, said there.
        if (failedCode !== undefined || ending || transport === undefined) return;
        const status = t.exitStatus;
        const why =
          status === undefined ? "the server's pipes closed" : describeExit(status, t.hasAnswered);
        const tail = t.stderrTail.lines();
        failStart(`server ${run.server} ended: ${why}`, SERVER_FAILED);
        for (const line of tail) run.err(`  | ${sanitize(redact(line))}\n`);
        // Wait for its process group to be gone, then end.
        void t.close().then(() => finish(SERVER_FAILED));
      };
      try {
        await t.start();
        transport = t;
      } catch (err) {
        failStart(
          `server ${run.server}: could not start ${JSON.stringify(spec.command)}: ${message(err)}`,
          SERVER_FAILED,
        );
      }
    }
  } catch (err) {
    // The lock, or a ${VAR} of the server: contractpin's side could not run it.
    failStart(
      message(err),
      isContractpinError(err, "ENV_UNSET") || isContractpinError(err, "SOURCE_INVALID")
        ? SERVER_FAILED
        : CANNOT_RUN,
    );
  }

  const abort = () => {
    void (transport?.close() ?? Promise.resolve()).then(() => finish(CANNOT_RUN));
  };
  run.ctx.signal?.addEventListener("abort", abort, { once: true });
  try {
    const code = await finished;
    if (run.ctx.signal?.aborted) throw run.ctx.signal.reason;
    return code;
  } finally {
    run.ctx.signal?.removeEventListener("abort", abort);
    if (log !== undefined) closeSync(log);
  }
}

/** The URL and headers of an HTTP server, every ${VAR} expanded (as verify reads it). */
function httpTarget(
  source: HttpSource,
  env: Readonly<Record<string, string | undefined>>,
): { url: URL; headers: Record<string, string> } {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(source.headers ?? {})) {
    const expanded = expandReferences(value, env, `header ${name}`);
    if (/[\r\n\0]/.test(expanded)) {
      throw new ContractpinError(
        "SOURCE_INVALID",
        `header ${name} has a line break or NUL in its value once its references are expanded`,
      );
    }
    headers[name] = expanded;
  }
  const text = expandReferences(source.url, env, "the URL");
  try {
    return { url: new URL(text), headers };
  } catch {
    throw new ContractpinError(
      "SOURCE_INVALID",
      "the URL is not a valid URL once its references are expanded",
    );
  }
}

/** How a server ended on its own (as verify words it; the guard does not load the MCP client library). */
function describeExit(status: ExitStatus, answered: boolean): string {
  const how =
    status.signal !== null ? `was killed by ${status.signal}` : `exited with code ${status.code}`;
  return answered ? `it ${how}` : `it ${how} before answering`;
}

function openLog(path: string): number {
  try {
    return openSync(path, "a");
  } catch (err) {
    throw new ContractpinError(
      "USAGE",
      `--log ${path}: cannot open the file: ${(err as NodeJS.ErrnoException).code ?? message(err)}`,
    );
  }
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** One line for a terminal or a CI log: control and invisible characters shown, never acted on. */
function sanitize(text: string): string {
  return visibleText(text);
}

function eventLine(e: GuardEvent): string {
  const tool = `"${visibleText(e.tool)}"`;
  const what = e.event === "withheld" ? `withheld tool ${tool}` : `refused tools/call ${tool}`;
  const digests =
    e.reason === "drifted"
      ? ` (pinned ${e.pinned}, live ${e.live})`
      : e.reason === "unpinned"
        ? ` (not in the lock; live ${e.live})`
        : " (the server does not list it)";
  return `server ${e.server}: ${what}: ${e.reason}${digests}`;
}

/** Splits a stream into lines (without their newlines), each at most `max` bytes. */
function readLines(
  input: NodeJS.ReadableStream,
  max: number,
  on: { line: (line: Buffer) => void; tooLong: () => void; end: () => void },
): void {
  let chunks: Buffer[] = [];
  let pending = 0;
  let skipping = false;
  input.on("data", (buf: Buffer) => {
    let from = 0;
    for (let nl = buf.indexOf(0x0a, from); nl !== -1; nl = buf.indexOf(0x0a, from)) {
      chunks.push(buf.subarray(from, nl));
      const line = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
      chunks = [];
      pending = 0;
      from = nl + 1;
      if (skipping) skipping = false;
      else if (line.some((b) => b !== 0x20 && b !== 0x09 && b !== 0x0d)) on.line(Buffer.from(line));
    }
    if (from < buf.length && !skipping) {
      chunks.push(buf.subarray(from));
      pending += buf.length - from;
      if (pending > max) {
        on.tooLong();
        chunks = [];
        pending = 0;
        skipping = true;
      }
    }
  });
  input.once("end", on.end);
  input.once("error", on.end);
}
