/**
 * contractpin's library API: the few verbs a program needs to pin and check
 * an MCP server's contract itself, with the digests the CLI writes. Every
 * verb is deterministic and does no IO: the caller reads the bytes (a lock,
 * a dump, a server's responses) and passes them in.
 *
 * - `parseJson`: the strict parser every byte goes through (spec 4).
 * - `canonicalize`: contractpin-canonical-json/1 (RFC 8785).
 * - `readDump`: a dump's tools and, for a surface dump, its surface.
 * - `digestServer`: a server's lock entry digests, tools and surface alike.
 * - `parseLock`: a lock's bytes, validated as `verify` validates them.
 * - `verifyServed`: what a server serves against its lock entry, with
 *   `verify`'s exit code (0 match, 1 drift).
 * - `checkTools`: the guard's decision for one tools/list.
 */
import { ContractpinError } from "./core/errors.js";
import { verdict } from "./core/contract/verdict.js";
import { compareServed, type Served } from "./core/contract/compare-served.js";
import { digestTools, type ServerDigests } from "./core/contract/digest.js";
import type { JsonValue } from "./core/json/json-value.js";
import type { Lock } from "./core/lock/lock.js";
import { digestSurface, withSurfaceDigests } from "./core/surface/surface.js";
import { isSurfaceDump, surfaceFromDump } from "./core/surface/dump.js";
import { toolsFromDump } from "./core/contract/tools-list.js";
import { lockFromBytes } from "./io/lock-file.js";
import type { ServerFinding } from "./core/contract/compare.js";

export { parseJson, type ParseOptions } from "./core/json/strict-json.js";
export { canonicalize } from "./core/json/canonical-json.js";
export {
  checkTools,
  type CheckOptions,
  type CheckResult,
  type WithheldTool,
} from "./guard/policy/policy.js";
export { ContractpinError, isContractpinError, type ErrorCode } from "./core/errors.js";
export type { JsonValue, JsonObject } from "./core/json/json-value.js";
export type { Digest, ServerDigests } from "./core/contract/digest.js";
export type { Lock, PinnedServer } from "./core/lock/lock.js";
export type { Served } from "./core/contract/compare-served.js";
export type { ServerFinding, ToolFinding, SurfaceFinding } from "./core/contract/compare.js";

/**
 * What a dump holds (a parsed tools/list dump of SPEC.md 5, or a surface dump
 * of SPEC.md 10.3): its tools, and for a surface dump its surface.
 *
 * @throws ContractpinError DUMP_INVALID naming what is wrong and where.
 */
export function readDump(dump: JsonValue): Served {
  if (!isSurfaceDump(dump)) return { tools: toolsFromDump(dump) };
  const { tools, surface } = surfaceFromDump(dump);
  return { tools, surface };
}

/**
 * A server's digests as the lock records them (spec 4, SPEC.md 10.5): each
 * tool's, and with `surface` the instructions' and each list's, and the
 * server digest over all of them. The same bytes the CLI writes.
 *
 * @throws ContractpinError a duplicate name, an invalid tool or item.
 */
export function digestServer(served: Served): ServerDigests {
  const tools = digestTools(served.tools);
  if (served.surface === undefined) return tools;
  return withSurfaceDigests(tools, digestSurface(served.surface).digests);
}

/**
 * A lock's bytes, parsed strictly and validated whole, as every command
 * reads it (SPEC.md 7): a hand-edited digest is corrupt, not drift.
 *
 * @param name the lock's name in error messages.
 * @throws ContractpinError LOCK_CORRUPT (or another LOCK_* code) naming the problem.
 */
export function parseLock(bytes: Uint8Array, name = "contractpin.lock"): Lock {
  return lockFromBytes(name, bytes);
}

/** A server verified: `verify`'s exit code for it, and what moved. */
export interface Verified {
  /** 0: it serves what the lock pins; 1: something moved, was added or was removed. */
  exitCode: 0 | 1;
  /** Every tool (and surface item) of both sides, classified. */
  finding: ServerFinding;
}

/**
 * Compares what a server serves with its entry in a lock, as `verify` does
 * (spec 6, SPEC.md 10.6): the same comparison and the same verdict, every
 * kind alike. A server pinned with its surface must be given its surface
 * (a tools-only `served` has every pinned part removed).
 *
 * @param options.allowNew an added item does not fail (`verify --allow-new`).
 * @throws ContractpinError SERVER_UNKNOWN for a server the lock does not pin, or what digesting `served` throws (a duplicate name, ...).
 */
export function verifyServed(
  lock: Lock,
  server: string,
  served: Served,
  options: { allowNew?: boolean } = {},
): Verified {
  if (!Object.hasOwn(lock.servers, server))
    throw new ContractpinError(
      "SERVER_UNKNOWN",
      `the lock pins no server ${JSON.stringify(server)}`,
    );
  const allowNew = options.allowNew === true;
  const { finding } = compareServed(server, lock.servers[server]!, served, { allowNew });
  return { exitCode: verdict([finding], undefined, { allowNew }), finding };
}
