// Waits that the run goes on after. Each timer holds the process while it
// runs: a wait on an unref'd timer with nothing else pending lets Node end
// the process mid-run, with exit code 0 and nothing printed (a read that
// timed out would pass as all well). A wait that can end early clears its
// timer, so nothing is left to hold the process once the run is done.

/** Resolves after `ms`. */
export function pause(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}

/**
 * `promise`'s value, or undefined once `ms` have passed without it settling
 * (a rejection is passed on); the timer is cleared either way.
 */
export async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<undefined>((done) => {
        timer = setTimeout(() => done(undefined), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
