/** Where a command writes, and whether it may use colour. Injected so commands stay testable. */
export interface Io {
  out(text: string): Promise<void>;
  err(text: string): Promise<void>;
  /** True when stdout is a terminal and NO_COLOR is unset. */
  color: boolean;
  /** True when stderr is a terminal: live progress may redraw lines there. */
  interactive: boolean;
  /** Aborted on Ctrl-C or SIGTERM, so that servers are shut down before exit. */
  signal?: AbortSignal;
}

/**
 * Writes to a stream, resolving once the text is handed to the system. A
 * reader that went away (`contractpin digest | head`) is not an error of
 * contractpin's: further output is dropped instead of crashing on EPIPE.
 */
function writer(stream: NodeJS.WriteStream): (text: string) => Promise<void> {
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

/** The process's own stdout and stderr. Colour only on a TTY, never under NO_COLOR (any value but ""). */
export function processIo(): Io {
  const noColor = process.env["NO_COLOR"] !== undefined && process.env["NO_COLOR"] !== "";
  return {
    out: writer(process.stdout),
    err: writer(process.stderr),
    color: process.stdout.isTTY === true && !noColor,
    interactive: process.stderr.isTTY === true,
  };
}
