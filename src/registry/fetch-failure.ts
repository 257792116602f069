import { ContractpinError } from "../core/errors.js";
import type { RunnerPackage } from "../core/source/package-runner.js";
import type { LookupOptions } from "./registry-types.js";

/** Makes a look-up's REGISTRY_UNREACHABLE error: one line, never a credential. */
export type Fail = (why: string, cause?: unknown) => ContractpinError;

/**
 * The error maker of one registry's look-up: each message starts with `where`
 * (`registry URL`, `index URL`, shown without a credential), or is the reason
 * alone when `where` is undefined.
 */
export function registryFail(where?: string): Fail {
  return (why, cause) =>
    new ContractpinError(
      "REGISTRY_UNREACHABLE",
      where === undefined ? why : `${where}: ${why}`,
      cause === undefined ? {} : { cause },
    );
}

/**
 * What a look-up's requests and parses are aborted by: its deadline (a
 * TimeoutError), and the caller's signal. The deadline is a timer of its own,
 * not AbortSignal.timeout: AbortSignal.any holds its sources weakly, and
 * Node 20 lets a timeout signal nothing else holds be garbage-collected with
 * its timer, so a look-up that made garbage (the parse of a large answer)
 * lost its deadline. The timer is unref'd: it never keeps the process alive.
 */
export function lookupSignal(options: LookupOptions): AbortSignal {
  const deadline = new AbortController();
  setTimeout(() => {
    deadline.abort(new DOMException("the look-up's deadline passed", "TimeoutError"));
  }, options.timeoutMs).unref();
  if (options.signal === undefined) return deadline.signal;
  return AbortSignal.any([deadline.signal, options.signal]);
}

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

/**
 * The exact version a package pins, for recording its artifact.
 * @throws ContractpinError REGISTRY_UNREACHABLE when it pins none: what an
 *   unpinned runner fetches changes with every release, so there is nothing to record.
 */
export function exactVersion(pkg: RunnerPackage): string {
  if (pkg.version !== undefined) return pkg.version;
  throw registryFail()(
    `${pkg.spec} pins no exact version, so it has no artifact to record; pin one with 'contractpin upgrade'`,
  );
}
