/**
 * Keeps the last lines a child wrote to stderr, in bounded memory however
 * much it writes, for the message shown when that server fails.
 */
export class StderrTail {
  private tail: Buffer = Buffer.alloc(0);

  constructor(
    private readonly maxBytes = 4096,
    private readonly maxLines = 8,
  ) {}

  push(chunk: Buffer): void {
    const joined = this.tail.length === 0 ? chunk : Buffer.concat([this.tail, chunk]);
    this.tail =
      joined.length > this.maxBytes
        ? Buffer.from(joined.subarray(joined.length - this.maxBytes))
        : joined;
  }

  /** The last lines, decoded leniently, with terminal controls removed and long lines cut. */
  lines(): string[] {
    /* eslint-disable no-control-regex -- removing terminal controls is the point */
    return this.tail
      .toString("utf8")
      .replace(/\u001b\[[0-9;?]*[A-Za-z]/g, "")
      .split(/\r?\n/)
      .map((line) => line.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, "").trimEnd())
      .filter((line) => line !== "")
      .slice(-this.maxLines)
      .map((line) => (line.length > 200 ? `${line.slice(0, 197)}...` : line));
    /* eslint-enable no-control-regex */
  }
}
