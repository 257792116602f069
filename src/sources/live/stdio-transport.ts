import { spawn, type ChildProcess } from "node:child_process";
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client";
import type { RawLog } from "./raw-log.js";
import { StderrTail } from "./stderr-tail.js";

/** What to spawn: argv, environment and working directory, already expanded. */
export interface SpawnSpec {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
}

const MAX_LINE_BYTES = 64 * 1024 * 1024;

/**
 * An MCP stdio transport of contractpin's own. Unlike the library's, it
 * hands every stdout line to the strict parser (through the RawLog) before
 * anything else sees it, starts the server in its own process group, and ends
 * that whole group, grandchildren included, when it closes. The server's
 * stderr is kept apart (last lines only), never mixed into contractpin's.
 */
export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly stderrTail = new StderrTail();
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  private chunks: Buffer[] = [];
  private pendingBytes = 0;
  private closed = false;
  private hasExited = false;

  constructor(
    private readonly spec: SpawnSpec,
    private readonly log: RawLog,
  ) {}

  // The client classifies a transport with `stderr` and `pid` as stdio, where a
  // server that ignores the version probe is taken to speak the older protocol.
  get stderr(): null {
    return null;
  }
  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.spec.command, this.spec.args, {
        env: this.spec.env,
        cwd: this.spec.cwd,
        stdio: ["pipe", "pipe", "pipe"],
        detached: true, // setsid(): its own process group, so the whole group can be ended
        windowsHide: true,
      });
      this.child = child;
      // "exit", not "close": a process the server left behind (in another
      // session) may hold its stdout open long after the server is gone.
      this.exited = new Promise((done) => {
        const end = () => {
          this.hasExited = true;
          done();
        };
        child.once("exit", end);
        child.once("error", end); // a command that could not be started never exits
      });
      child.once("error", (err) => {
        reject(err);
        this.finish();
      });
      child.once("spawn", () => resolve());
      child.once("exit", () => this.finish());
      child.stdin!.on("error", (err) => this.onerror?.(err));
      child.stderr!.on("data", (chunk: Buffer) => this.stderrTail.push(chunk));
      child.stdout!.on("data", (chunk: Buffer) => this.onData(chunk));
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
      this.onLine(line);
    }
    if (from < buf.length) {
      this.chunks.push(buf.subarray(from));
      this.pendingBytes += buf.length - from;
      if (this.pendingBytes > MAX_LINE_BYTES) {
        this.log.fail(
          new Error(`the server sent a message longer than ${MAX_LINE_BYTES / 1024 / 1024} MiB`),
        );
        this.chunks = [];
        this.pendingBytes = 0;
      }
    }
  }

  private onLine(line: Buffer): void {
    if (line.every((b) => b === 0x20 || b === 0x09 || b === 0x0d)) return;
    // A line that is not JSON at all (a log line) is skipped with a warning, as official clients skip it.
    const message = this.log.receivedLine(line);
    if (message !== undefined) this.onmessage?.(message as unknown as JSONRPCMessage);
  }

  send(message: JSONRPCMessage): Promise<void> {
    this.log.sent(message);
    return new Promise((resolve, reject) => {
      const stdin = this.child?.stdin;
      if (!stdin || this.closed) return reject(new Error("the server is not running"));
      stdin.write(JSON.stringify(message) + "\n", (err) => (err ? reject(err) : resolve()));
    });
  }

  /**
   * Ends the server: stdin closed (the polite MCP shutdown), then SIGTERM to its
   * process group, then SIGKILL; then SIGKILL to the group once more for any
   * process the server left behind. Resolves when the server has exited.
   */
  async close(): Promise<void> {
    const child = this.child;
    if (child === undefined) return;
    child.stdin?.end();
    if (!(await this.exitsWithin(300))) {
      this.signalGroup("SIGTERM");
      if (!(await this.exitsWithin(1000))) this.signalGroup("SIGKILL");
    }
    this.signalGroup("SIGKILL");
    // The pipes are ours to drop: nothing more is read from a server being ended.
    child.stdout?.destroy();
    child.stderr?.destroy();
    child.stdin?.destroy();
    await this.exitsWithin(2000);
    this.finish();
  }

  private exitsWithin(ms: number): Promise<boolean> {
    if (this.hasExited) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      void this.exited.then(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  private signalGroup(signal: NodeJS.Signals): void {
    const pid = this.child?.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, signal);
    } catch {
      // ESRCH: the group is already gone.
    }
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }
}
