/**
 * Why a registry request failed, in a few words: fetch's own message says only
 * "fetch failed"; its cause says why (ECONNREFUSED, ENOTFOUND), and a timeout
 * says how long was waited.
 */
export function fetchFailure(err: unknown, timeoutMs: number): string {
  if (err instanceof Error && err.name === "TimeoutError")
    return `no answer within ${timeoutMs / 1000} s`;
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? String(err);
}
