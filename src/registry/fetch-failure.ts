/**
 * Why a registry request failed, in one line: the deadline, or the network
 * error's code (fetch's own message says only "fetch failed"; its cause says
 * why: ECONNREFUSED, ENOTFOUND).
 */
export function fetchFailureReason(err: unknown, timeoutMs: number): string {
  if (err instanceof Error && err.name === "TimeoutError")
    return `no answer within ${timeoutMs / 1000} s`;
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? String(err);
}
