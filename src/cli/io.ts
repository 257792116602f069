import { fstatSync, writeSync } from "node:fs";

/** Where a command writes, and whether it may use colour. Injected so commands stay testable. */
export interface Io {
  out(text: string): Promise<void>;
  err(text: string): Promise<void>;
  /** True when stdout is a terminal (or FORCE_COLOR asks for colour) and NO_COLOR is unset. */
  color: boolean;
  /** True when stderr is a terminal: live progress may redraw lines there. */
  interactive: boolean;
  /** The height of that terminal, when known: progress redraws only what fits. */
  rows?: number;
  /** Aborted on an interrupt (Ctrl-C, SIGTERM, SIGHUP), so that servers are shut down before exit. */
  signal?: AbortSignal;
  /**
   * Writes machine-readable output (JSON, SARIF) to stdout as it is, outside
   * any GitHub Actions stop-commands block (src/cli/workflow-guard.ts), so
   * that it still parses. Absent: `out`.
   */
  data?(text: string): Promise<void>;
  /**
   * Writes workflow commands that contractpin itself emits (annotations) to
   * stdout, after ending the stop-commands block, so that the runner acts on
   * them. Absent: `out`.
   */
  commands?(text: string): Promise<void>;
}

type Write = (text: string | Uint8Array) => Promise<void>;

/**
 * Writes to a stream, resolving once the text is handed to the system. A
 * reader that went away (`contractpin digest | head`) is not an error of
 * contractpin's: further output is dropped instead of crashing on EPIPE.
 */
function streamWriter(stream: NodeJS.WriteStream): Write {
  let gone = false;
  stream.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code === "EPIPE") gone = true;
  });
  return (text) =>
    new Promise((resolve, reject) => {
      if (gone) return resolve();
      stream.write(text, (err) => {
        if (!err || (err as NodeJS.ErrnoException).code === "EPIPE") resolve();
        else reject(err);
      });
    });
}

/**
 * Writes to a pipe or a file with write(2), without setting up
 * process.stdout: that stream loads tty, net and the stream modules, a few
 * milliseconds of a run that CI repeats on every push. EPIPE drops further
 * output as the stream writer does; EAGAIN (a pipe its other end made
 * non-blocking, now full) hands this and later output to the stream.
 */
function directWriter(fd: number, stream: () => NodeJS.WriteStream): Write {
  let gone = false;
  let fallback: Write | undefined;
  return async (text) => {
    if (gone) return;
    if (fallback !== undefined) return fallback(text);
    const bytes = typeof text === "string" ? Buffer.from(text, "utf8") : text;
    let offset = 0;
    while (offset < bytes.length) {
      try {
        offset += writeSync(fd, bytes, offset);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === "EPIPE") {
          gone = true;
          return;
        }
        if (code !== "EAGAIN") throw err;
        fallback = streamWriter(stream());
        return fallback(bytes.subarray(offset));
      }
    }
  };
}

/**
 * True when `fd` may be a terminal: only a character device can be, and so
 * is /dev/null, so then the stream decides. A closed descriptor is handed to
 * the stream as well, which copes with it as Node does.
 */
function maybeTerminal(fd: number): boolean {
  try {
    return fstatSync(fd).isCharacterDevice();
  } catch {
    return true;
  }
}

function output(fd: 1 | 2): { write: Write; isTTY: boolean } {
  const stream = () => (fd === 1 ? process.stdout : process.stderr);
  if (maybeTerminal(fd)) return { write: streamWriter(stream()), isTTY: stream().isTTY === true };
  return { write: directWriter(fd, stream), isTTY: false };
}

/**
 * The process's own stdout and stderr. Colour on a terminal unless TERM is
 * "dumb"; FORCE_COLOR (any value but "0" or "false") asks for it on a pipe
 * too, and "0"/"false" turns it off; NO_COLOR (any value but "") always wins.
 */
export function processIo(): Io {
  const env = process.env;
  const noColor = env["NO_COLOR"] !== undefined && env["NO_COLOR"] !== "";
  const force = env["FORCE_COLOR"];
  const dumb = env["TERM"] === "dumb";
  const out = output(1);
  const err = output(2);
  const terminalColor = out.isTTY && !dumb;
  const io: Io = {
    out: out.write,
    err: err.write,
    color: !noColor && (force === undefined ? terminalColor : force !== "0" && force !== "false"),
    // A dumb terminal cannot move the cursor: progress is then plain lines.
    interactive: err.isTTY && !dumb,
  };
  if (io.interactive && process.stderr.rows > 0) io.rows = process.stderr.rows;
  return io;
}
