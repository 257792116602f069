import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client";
import type { RawLog } from "./raw-log.js";
import { within } from "../../io/timers.js";
import {
  endServer,
  spawnServer,
  type ExitStatus,
  type SpawnedServer,
  type SpawnSpec,
} from "./spawn-server.js";
import { StderrTail } from "./stderr-tail.js";

/** What the transport hands each stdout line to: the RawLog of a read, or the guard's relay. */
export type LineSink = Pick<RawLog, "maxMessageBytes" | "receivedLine" | "failTooLarge" | "sent">;

// How long an exited server's pipes may still deliver what it wrote before it
// exited: long enough to drain them, short enough that a helper it left behind
// holding them open cannot stall the read.
const DRAIN_MS = 250;

// What a server prints when it ends on a request it did not expect before
// `initialize` (servers on the Rust SDK, rmcp: "expect initialized request,
// but received: ..."): the probe broke that process, not the server.
const PROBE_REJECTED = /initiali[sz]e|server\/discover|server-discover-probe/i;

/**
 * An MCP stdio transport of contractpin's own. Unlike the library's, it
 * hands every stdout line to the strict parser (through the RawLog) before
 * anything else sees it, starts the server in its own process group, and ends
 * that whole group, grandchildren included, when it closes. The server's
 * stderr is kept apart (first and last lines only), never mixed into
 * contractpin's; how the process ended is kept for the error message.
 */
export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly stderrTail = new StderrTail();
  private server: SpawnedServer | undefined;
  private chunks: Buffer[] = [];
  private pendingBytes = 0;
  // The rest of a line already refused as too large, up to its newline, is no line.
  private discarding = false;
  private closed = false;
  private closing = false;
  private spawnFailed = false;
  private ended: ExitStatus | undefined;
  private endedWhileClosing: ExitStatus | undefined;
  private signalled = false;
  private answered = false;
  private markFinished!: () => void;
  private readonly finished = new Promise<void>((done) => (this.markFinished = done));

  /**
   * @param started the process of `spec` when it was started already (the
   *   guard's early start); else start() starts it.
   */
  constructor(
    private readonly spec: SpawnSpec,
    private readonly log: LineSink,
    private readonly started?: SpawnedServer,
  ) {}

  // The client classifies a transport with `stderr` and `pid` as stdio, where a
  // server that ignores the version probe is taken to speak the older protocol.
  get stderr(): null {
    return null;
  }
  /** The program started, its references expanded. */
  get command(): string {
    return this.spec.command;
  }
  get pid(): number | null {
    return this.server?.child.pid ?? null;
  }

  start(): Promise<void> {
    const server = this.started ?? spawnServer(this.spec);
    this.server = server;
    const child = server.child;
    const failure = server.started.then((err) => {
      if (err !== undefined) this.spawnFailed = true;
      return err;
    });
    void server.exit.then((status) => {
      if (!this.closing) this.ended = status;
      else if (!this.signalled) this.endedWhileClosing = status;
      // What it wrote just before it exited may still be in the pipes.
      const drained = (stream: NodeJS.ReadableStream | null) =>
        new Promise<void>((done) => {
          if (stream === null || (stream as { readableEnded?: boolean }).readableEnded) done();
          else stream.once("end", done).once("close", done);
        });
      void within(Promise.all([drained(child.stdout), drained(child.stderr)]), DRAIN_MS).then(() =>
        this.finish(),
      );
    });
    child.stdin!.on("error", (err) => this.onerror?.(err));
    server.stderr.to((chunk) => this.stderrTail.push(chunk));
    server.stdout.to((chunk) => this.onData(chunk));
    return failure.then((err) => {
      if (err === undefined) return;
      this.finish();
      throw err;
    });
  }

  private onData(buf: Buffer): void {
    let from = 0;
    for (let nl = buf.indexOf(0x0a, from); nl !== -1; nl = buf.indexOf(0x0a, from)) {
      this.chunks.push(buf.subarray(from, nl));
      const line = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
      this.chunks = [];
      this.pendingBytes = 0;
      from = nl + 1;
      if (this.discarding) {
        this.discarding = false;
        continue;
      }
      // The whole line, measured once it ends: the part that arrived with its
      // newline can carry it past the limit the unfinished part was held to.
      if (line.length > this.log.maxMessageBytes) {
        this.log.failTooLarge();
        continue;
      }
      this.answered ||= line.some((b) => b !== 0x20 && b !== 0x09 && b !== 0x0d);
      this.onLine(line);
    }
    if (from < buf.length && !this.discarding) {
      this.chunks.push(buf.subarray(from));
      this.pendingBytes += buf.length - from;
      if (this.pendingBytes > this.log.maxMessageBytes) {
        // One wording and one limit for every transport.
        this.log.failTooLarge();
        this.chunks = [];
        this.pendingBytes = 0;
        this.discarding = true;
      }
    }
  }

  private onLine(line: Buffer): void {
    if (line.every((b) => b === 0x20 || b === 0x09 || b === 0x0d)) return;
    // A line that is not JSON at all (a log line) is skipped with a warning, as official clients skip it.
    const message = this.log.receivedLine(line);
    if (message !== undefined) this.onmessage?.(message as unknown as JSONRPCMessage);
  }

  /** How the server ended on its own, once it has; undefined while it runs, and when it was ended by close(). */
  get exitStatus(): ExitStatus | undefined {
    return this.ended;
  }

  /**
   * How a server that broke the pipe ended, waiting at most `ms` for it: a
   * write to a process that is ending fails (EPIPE) before its exit is seen,
   * and the library then closes the transport. An exit before close() sent
   * any signal is the server's own (it had closed its stdin already); one
   * that close() caused is undefined here.
   */
  async exitAfterBrokenPipe(ms: number): Promise<ExitStatus | undefined> {
    // server.gone settles on the exit (or a failed start) after `ended` is set.
    if (this.ended === undefined && !this.spawnFailed && this.server !== undefined)
      await within(this.server.gone, ms);
    return this.ended ?? this.endedWhileClosing;
  }

  /** True once the server wrote at least one line to stdout. */
  get hasAnswered(): boolean {
    return this.answered;
  }

  /**
   * Whether a version probe that broke this connection deserves a second
   * process, started for a plain `initialize`: yes while the server still
   * runs, when it ended saying it expected `initialize` first, or when it
   * exited with a code saying nothing at all on stderr (a server that ends on
   * any request it does not know, silently; the official client probes on a
   * process of its own, so it reads such a server). A server that could not
   * be started, was killed by a signal, or said why it ended (a missing
   * module, a missing token) would only fail again, and a second start would
   * run `npx` (and any side effect of starting) twice.
   */
  async mayRetryAfterProbe(): Promise<boolean> {
    if (this.spawnFailed) return false;
    // A probe that could not be written usually means the process is ending:
    // let its exit, and the stderr it wrote, arrive.
    await within(this.finished, 2 * DRAIN_MS);
    if (this.ended === undefined) return true;
    const stderr = this.stderrTail.lines();
    if (this.ended.signal === null && stderr.length === 0) return true;
    return stderr.some((line) => PROBE_REJECTED.test(line));
  }

  send(message: JSONRPCMessage): Promise<void> {
    this.log.sent(message);
    return new Promise((resolve, reject) => {
      const stdin = this.server?.child.stdin;
      if (!stdin || this.closed) return reject(new Error("the server is not running"));
      stdin.write(JSON.stringify(message) + "\n", (err) => (err ? reject(err) : resolve()));
    });
  }

  /**
   * Writes one message to the server exactly as given (the guard relays a
   * client's bytes unchanged); a newline is added after it.
   */
  sendRaw(bytes: Uint8Array): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.server?.child.stdin;
      if (!stdin || this.closed) return reject(new Error("the server is not running"));
      // One write, so one system call: the guard's hot path.
      const line = Buffer.allocUnsafe(bytes.byteLength + 1);
      line.set(bytes);
      line[bytes.byteLength] = 0x0a;
      stdin.write(line, (err) => (err ? reject(err) : resolve()));
    });
  }

  /**
   * Ends the server as endServer does (stdin closed, then SIGTERM to its
   * process group, then SIGKILL). Resolves when the server has exited.
   */
  async close(): Promise<void> {
    const server = this.server;
    if (server === undefined) return;
    this.closing = true;
    await endServer(server, () => (this.signalled = true));
    this.finish();
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.markFinished();
    this.onclose?.();
  }
}
