/**
 * Keeps the first and the last lines a child wrote to stderr, in bounded
 * memory however much it writes, for the message shown when that server
 * fails: the cause is usually near the top (`Cannot find module ...`), the
 * way it ended near the bottom, and a long stack between them.
 */
export class StderrTail {
  private head: Buffer = Buffer.alloc(0);
  // Lines that look like an error, wherever they stand (at most MAX_NOTABLE),
  // and the unfinished line they are found in.
  private readonly notable: string[] = [];
  private partial = "";
  private tail: Buffer = Buffer.alloc(0);
  private total = 0;
  private newlines = 0;
  private endsWithNewline = true;

  /**
   * @param maxHeadBytes bytes kept from the start (default 2 KiB)
   * @param maxHeadLines lines shown from the start (default 4)
   * @param maxTailBytes bytes kept from the end (default 4 KiB)
   * @param maxTailLines lines shown from the end (default 8)
   */
  constructor(
    private readonly maxHeadBytes = 2048,
    private readonly maxHeadLines = 4,
    private readonly maxTailBytes = 4096,
    private readonly maxTailLines = 8,
  ) {}

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.total += chunk.length;
    for (let i = chunk.indexOf(0x0a); i !== -1; i = chunk.indexOf(0x0a, i + 1)) this.newlines++;
    this.endsWithNewline = chunk[chunk.length - 1] === 0x0a;
    this.scan(chunk);
    let rest = chunk;
    if (this.head.length < this.maxHeadBytes) {
      const room = this.maxHeadBytes - this.head.length;
      this.head = Buffer.concat([this.head, rest.subarray(0, room)]);
      rest = rest.subarray(room);
      if (rest.length === 0) return;
    }
    const joined = this.tail.length === 0 ? rest : Buffer.concat([this.tail, rest]);
    this.tail =
      joined.length > this.maxTailBytes
        ? Buffer.from(joined.subarray(joined.length - this.maxTailBytes))
        : Buffer.from(joined);
  }

  private scan(chunk: Buffer): void {
    if (this.notable.length >= MAX_NOTABLE) return;
    const lines = (this.partial + chunk.toString("utf8")).split("\n");
    this.partial = lines.pop()!.slice(0, MAX_SCANNED_LINE);
    for (const line of lines) {
      if (this.notable.length < MAX_NOTABLE && ERROR_LIKE.test(line) && !NOISE.test(line))
        this.notable.push(line);
    }
  }

  /**
   * The first and last lines, decoded leniently, with terminal controls
   * removed and long lines cut, and one `... N lines skipped ...` line
   * between them when lines were left out.
   */
  lines(): string[] {
    const lineCount = this.newlines + (this.endsWithNewline ? 0 : 1);
    let first: string[];
    let last: string[];
    if (this.head.length + this.tail.length === this.total) {
      // Everything is still here: cut by lines only.
      const all = splitLines(Buffer.concat([this.head, this.tail]));
      if (all.length <= this.maxHeadLines + this.maxTailLines) return clean(all);
      first = all.slice(0, this.maxHeadLines);
      last = all.slice(-this.maxTailLines);
    } else {
      // The middle was dropped: the head's last line and the tail's first may be partial.
      first = splitLines(this.head).slice(0, this.maxHeadLines);
      last = splitLines(this.tail).slice(1).slice(-this.maxTailLines);
    }
    // Package-manager noise (npm's EBADENGINE warnings on a first run) gives
    // its place at the head to lines that look like the error.
    const shown = new Set([...first, ...last]);
    const errors = this.notable
      .slice(0, this.maxHeadLines)
      .filter((line) => !shown.has(line) && !shown.has(line.replace(/\r$/, "")));
    if (errors.length > 0) {
      const kept = first.filter((line) => !NOISE.test(line));
      first = [...kept.slice(0, this.maxHeadLines - errors.length), ...errors];
    }
    const skipped = lineCount - first.length - last.length;
    const marker =
      skipped > 0 ? [`... ${skipped} line${skipped === 1 ? "" : "s"} skipped ...`] : [];
    return [...clean(first), ...marker, ...clean(last)];
  }
}

// At most this many error-looking lines are kept, each scanned up to this many characters.
const MAX_NOTABLE = 4;
const MAX_SCANNED_LINE = 1024;
// "Error: No access token was provided.", "npm ERR! 404", "FATAL", "Traceback".
const ERROR_LIKE =
  /\b(error|fatal|exception|traceback|panic)\b|\bERR!|\bnot (set|found|provided)\b/i;
// A package manager's warnings and notices: rarely why a server failed.
const NOISE = /^\s*(npm (warn|notice)|npm WARN|warning|WARN)\b|EBADENGINE|deprecated/i;

function splitLines(bytes: Buffer): string[] {
  const lines = bytes.toString("utf8").split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

function clean(lines: string[]): string[] {
  /* eslint-disable no-control-regex -- removing terminal controls is the point */
  return lines
    .map((line) =>
      line
        .replace(/\u001b\[[0-9;?]*[A-Za-z]/g, "")
        .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, "")
        .trimEnd(),
    )
    .filter((line) => line !== "")
    .map((line) => (line.length > 200 ? `${line.slice(0, 197)}...` : line));
  /* eslint-enable no-control-regex */
}
