/**
 * The work of reading one registry answer, counted and paced. A registry
 * chooses what it sends (up to the look-up's byte bound), so every parser of
 * registry data is linear in it, and counts its work here in steps (one step:
 * a character looked at, or an item handled, each a bounded amount of work).
 * A parse runs in turns: between them the event loop runs, so the look-up's
 * deadline timer and the handlers of Ctrl-C and SIGTERM fire while it parses,
 * and the parse then stops with the signal's reason.
 */

/** The steps of one turn: a fraction of a millisecond of parsing. */
export const STEPS_PER_TURN = 1 << 16;

/** Counts a parse's steps and lets the event loop run every {@link STEPS_PER_TURN} of them. */
export class Pace {
  /** The steps counted so far. */
  steps = 0;
  private next = STEPS_PER_TURN;

  /** @param signal what stops the parse: the look-up's deadline and the run's interrupt. */
  constructor(private readonly signal?: AbortSignal) {}

  /** Counts `n` steps of work done. */
  count(n: number): void {
    this.steps += n;
  }

  /** True once a turn's steps are done: the parse should `await turn()` before going on. */
  get due(): boolean {
    return this.steps >= this.next;
  }

  /**
   * Lets the event loop run once (timers, signal handlers), then goes on.
   * @throws the signal's reason (a TimeoutError, or the interrupt) once it is aborted.
   */
  async turn(): Promise<void> {
    this.next = this.steps + STEPS_PER_TURN;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.signal?.throwIfAborted();
  }
}

/**
 * Calls `each` on every item in order, one step each (`each` counts any more
 * work it does), letting the event loop run whenever a turn is due.
 */
export async function eachPaced<T>(
  items: Iterable<T>,
  pace: Pace,
  each: (item: T) => void,
): Promise<void> {
  for (const item of items) {
    each(item);
    pace.count(1);
    if (pace.due) await pace.turn();
  }
}

/**
 * The highest item by `compare`, or undefined for none: one paced pass, no
 * sort (a registry may list hundreds of thousands). Of items that rank the
 * same, the last, as a stable sort's last item would be.
 */
export async function highest<T>(
  items: Iterable<T>,
  compare: (a: T, b: T) => number,
  pace: Pace = new Pace(),
): Promise<T | undefined> {
  let best: { item: T } | undefined;
  await eachPaced(items, pace, (item) => {
    if (best === undefined || compare(item, best.item) >= 0) best = { item };
  });
  return best?.item;
}
