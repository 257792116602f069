/** Writes one message to the client; `answers` is the client's id (its text) when it answers a client request. */
export type ToClient = (text: Uint8Array | string, answers?: string) => void;

/**
 * What answers one request: its text, or notices of the guard's own
 * (notifications/message) and then its text, written in that order (before
 * the answer, so that over HTTP they travel on the request's own stream).
 */
export type Answer = string | readonly string[];

interface Slot {
  text: Uint8Array | Answer | undefined;
  answers: string | undefined;
  ready: boolean;
}

/**
 * The guard's messages to the client, in the order they were decided: a
 * message still being checked (a tools/list result against the lock) holds
 * back every later one, so nothing the server sent after it can overtake
 * it. While nothing is held a message is written at once, so the tools/call
 * path pays nothing for the order.
 */
export class Outbox {
  private readonly held: Slot[] = [];
  private idle: (() => void)[] = [];

  constructor(private readonly write: ToClient) {}

  /** Writes a message (an answer with its notices), or queues it behind one being checked. */
  send(text: Uint8Array | Answer, answers?: string): void {
    if (this.held.length === 0) this.writeAnswer(text, answers);
    else this.held.push({ text, answers, ready: true });
  }

  /**
   * Keeps the next place for a message still being checked: what `checked`
   * resolves to is written there (nothing when it rejects: the checker
   * answers every outcome itself).
   */
  hold(checked: Promise<Answer>, answers?: string): void {
    const slot: Slot = { text: undefined, answers, ready: false };
    this.held.push(slot);
    void checked
      .then(
        (text) => (slot.text = text),
        () => undefined,
      )
      .finally(() => {
        slot.ready = true;
        this.flush();
      });
  }

  /** Resolves once every held message has been written. */
  drained(): Promise<void> {
    if (this.held.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  private flush(): void {
    while (this.held[0]?.ready === true) {
      const slot = this.held.shift()!;
      if (slot.text !== undefined) this.writeAnswer(slot.text, slot.answers);
    }
    if (this.held.length === 0) for (const wake of this.idle.splice(0)) wake();
  }

  private writeAnswer(text: Uint8Array | Answer, answers: string | undefined): void {
    if (typeof text === "string" || text instanceof Uint8Array) return this.write(text, answers);
    text.forEach((part, i) => this.write(part, i === text.length - 1 ? answers : undefined));
  }
}
