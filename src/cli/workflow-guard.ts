import { randomBytes } from "node:crypto";
import { fstatSync } from "node:fs";
import type { Io } from "./io.js";

/**
 * Under GitHub Actions, nothing a server says becomes a workflow command.
 *
 * The runner acts on any output line that starts with `::command` (after
 * leading spaces) or holds `##[command]` anywhere, so a description line
 * `::add-mask::x` or a stderr line `::set-output name=x::y` would be obeyed.
 * contractpin therefore writes everything it prints, on both streams, inside
 * a `::stop-commands::TOKEN` ... `::TOKEN::` block with a fresh random token,
 * which a server cannot guess and so cannot close:
 *
 * - a stream's first write opens the block on that stream (both streams
 *   carry the same token: whichever opening the runner reads first stops
 *   commands, the other is then inert text);
 * - the block is closed once, at the end of the run, on the stream written
 *   last;
 * - contractpin's own annotations are written by `commands()`: the block is
 *   closed first, and the next write opens a new one with a new token;
 * - machine-readable output (`data()`: JSON, SARIF) is written as it is, so
 *   that it still parses: no line of pretty-printed JSON starts with `::`,
 *   and `##[` is escaped in it (render/report-model.ts inertJson);
 * - a stream that is a regular file (`> report.txt`) is not read by the
 *   runner and is written as it is.
 *
 * The runner reads stdout and stderr through two pipes, so their order is
 * only as good as its reading; all of a run's stderr is written before the
 * report on stdout and its closing line.
 */
export interface GuardedIo extends Io {
  /** Ends the block (if one is open), on the stream written last. */
  end(): Promise<void>;
}

/** Options of {@link guardWorkflowCommands}. */
export interface GuardOptions {
  /** Makes a fresh token (default: 128 random bits in hex, from node:crypto). */
  token?: () => string;
  /** Streams the runner does not read, written as they are (default: those that are regular files). */
  plain?: { out: boolean; err: boolean };
}

type Stream = "out" | "err";

/** Wraps `io` so that all it prints is inside stop-commands blocks (see the module comment). */
export function guardWorkflowCommands(io: Io, options: GuardOptions = {}): GuardedIo {
  const newToken = options.token ?? (() => randomBytes(16).toString("hex"));
  const plain = options.plain ?? { out: isRegularFile(1), err: isRegularFile(2) };
  const raw = { out: io.out, err: io.err };
  const atLineStart = { out: true, err: true };
  let token: string | undefined;
  const opened = new Set<Stream>();
  let last: Stream | undefined;

  // State changes happen before the first await, so writes keep their order.
  const put = (stream: Stream, text: string): Promise<void> => {
    if (text === "") return Promise.resolve();
    atLineStart[stream] = text.endsWith("\n");
    return raw[stream](text);
  };
  const guarded = (stream: Stream, text: string): Promise<void> => {
    if (text === "" || plain[stream]) return put(stream, text);
    if (token === undefined) {
      token = newToken();
      opened.clear();
    }
    let prefix = "";
    if (!opened.has(stream)) {
      // The opening must start a line of its own.
      prefix = `${atLineStart[stream] ? "" : "\n"}::stop-commands::${token}\n`;
      opened.add(stream);
    }
    last = stream;
    return put(stream, prefix + text);
  };
  const close = (stream: Stream): Promise<void> => {
    if (token === undefined) return Promise.resolve();
    const ending = `${atLineStart[stream] ? "" : "\n"}::${token}::\n`;
    token = undefined;
    opened.clear();
    return put(stream, ending);
  };
  return {
    ...io,
    out: (text) => guarded("out", text),
    err: (text) => guarded("err", text),
    data: (text) => put("out", text),
    commands: async (text) => {
      if (!plain.out) await close("out");
      await put("out", text);
    },
    end: () => close(last ?? "out"),
  };
}

function isRegularFile(fd: number): boolean {
  try {
    return fstatSync(fd).isFile();
  } catch {
    return false;
  }
}
