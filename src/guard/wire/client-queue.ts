/** Server messages kept for a client that has no stream open, at most. */
export const MAX_QUEUED = 1000;

/**
 * The server's messages (requests, notifications) that wait for a client of
 * `guard --listen` with no stream open, oldest first. Bounded twice: at most
 * MAX_QUEUED messages, and at most `maxBytes` of them together in UTF-8 (the
 * guard passes --max-message-mib's bound, so one message of the largest size
 * it reads always fits, and a server cannot make it hold more than that).
 * Past either bound the oldest are dropped, each told to `dropped`.
 */
export class ClientQueue {
  private items: { text: string; bytes: number }[] = [];
  private bytes = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly dropped: () => void,
  ) {}

  /** Keeps a message; drops the oldest (this one too, should it alone pass the bound) until both bounds hold. */
  push(text: string): void {
    const bytes = Buffer.byteLength(text, "utf8");
    this.items.push({ text, bytes });
    this.bytes += bytes;
    while (this.items.length > MAX_QUEUED || this.bytes > this.maxBytes) {
      this.bytes -= this.items.shift()!.bytes;
      this.dropped();
    }
  }

  /** The messages kept, oldest first; the queue is empty after. */
  take(): string[] {
    const texts = this.items.map((item) => item.text);
    this.items = [];
    this.bytes = 0;
    return texts;
  }

  /** The bytes kept (UTF-8). */
  get size(): number {
    return this.bytes;
  }
}
