import type { ReadContext } from "../sources/read-tools.js";
import { LockState } from "./policy/lock-state.js";
import { Relay, type OnDrift } from "./relay.js";
import { makeReporter } from "./reporter.js";
import { CANNOT_RUN, OK, openUpstream, type OpenUpstream } from "./faces/upstream.js";
import { warmUp } from "./policy/warm-up.js";

/** What every face of `contractpin guard` (stdio, --listen) is given. */
export interface GuardOptions {
  server: string;
  lockPath: string;
  allowNew: boolean;
  onDrift: OnDrift;
  /** A file that receives one JSON line per event (appended). */
  logFile?: string;
  ctx: ReadContext;
  /** Writes one line (with its newline) to stderr. */
  err: (line: string) => void;
}

/** How `contractpin guard` runs over stdio. */
export interface GuardRun extends GuardOptions {
  /** The client's messages, one per line. */
  input: NodeJS.ReadableStream;
  /** Writes to the client. */
  output: (text: string) => void;
}

/**
 * Runs one guarded session until the client closes its end (exit 0), the
 * server ends (exit 1), or contractpin is interrupted (the abort reason is
 * thrown). When the guard cannot start the server (an unreadable lock, a
 * server not in it, a variable that is not set, a command that cannot be
 * started), it says why on stderr and answers every request of the client
 * with that error until the client closes its end: never a tool unchecked.
 */
export async function runGuard(run: GuardRun): Promise<number> {
  const report = makeReporter(run.err, run.logFile);
  let finish!: (code: number) => void;
  const finished = new Promise<number>((done) => (finish = done));
  const lock = new LockState(run.lockPath, run.server);
  // Set once the server is up; the client's lines are read before that.
  const server: { transport?: OpenUpstream | undefined } = {};
  const upstream = {
    sendRaw: (bytes: Uint8Array) =>
      server.transport === undefined
        ? Promise.reject(new Error("the server is not running"))
        : server.transport.sendRaw(bytes),
  };
  const relay = new Relay(upstream, {
    server: run.server,
    lock,
    allowNew: run.allowNew,
    onDrift: run.onDrift,
    timeoutMs: run.ctx.timeoutMs,
    toClient: (text) =>
      run.output(`${typeof text === "string" ? text : Buffer.from(text).toString("utf8")}\n`),
    onEvent: report.event,
    warn: report.say,
    redact: report.redact,
  });
  let failedCode: number | undefined;
  let clientGone = false;

  // The client's side: one message a line, read before the server is up so
  // that nothing it sends is lost; handled in order.
  readLines(run.input, run.ctx.maxMessageBytes, {
    line: (line) => relay.fromClient(line),
    tooLong: () =>
      report.event({
        event: "dropped",
        server: run.server,
        from: "client",
        what: `a client message larger than ${run.ctx.maxMessageBytes} bytes`,
      }),
    end: () => {
      clientGone = true;
      void relay.drained().then(async () => {
        await server.transport?.close();
        finish(failedCode ?? OK);
      });
    },
  });

  server.transport = await openUpstream(lock, {
    server: run.server,
    ctx: run.ctx,
    say: report.say,
    tail: report.tail,
    setRedact: report.setRedact,
    message: (bytes) => relay.fromServer(bytes),
    fail: (message, code) => {
      report.say(message);
      failedCode = code;
      // What the client is told passes the same redaction as stderr: an
      // expanded ${VAR} (in a command that could not be started) stays hidden.
      relay.fail(report.shown(message));
    },
    ended: finish,
  });
  // A client that left while the server was starting: nothing else would end it.
  if (clientGone) await server.transport?.close();
  // While the server starts, the digest path is compiled for its first tools/list.
  else if (server.transport !== undefined)
    await lock.current().then(
      (pinned) => warmUp(pinned.tool_count),
      () => undefined,
    );

  const abort = () => {
    void (server.transport?.close() ?? Promise.resolve()).then(() => finish(CANNOT_RUN));
  };
  run.ctx.signal?.addEventListener("abort", abort, { once: true });
  try {
    const code = await finished;
    if (run.ctx.signal?.aborted) throw run.ctx.signal.reason;
    return code;
  } finally {
    run.ctx.signal?.removeEventListener("abort", abort);
    report.close();
  }
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
      // The line's last part counts too: a line that ends in this chunk can be over `max`.
      const over = !skipping && pending + (nl - from) > max;
      if (over) on.tooLong();
      if (!skipping && !over) {
        chunks.push(buf.subarray(from, nl));
        const line = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
        if (line.some((b) => b !== 0x20 && b !== 0x09 && b !== 0x0d)) on.line(Buffer.from(line));
      }
      chunks = [];
      pending = 0;
      skipping = false;
      from = nl + 1;
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
