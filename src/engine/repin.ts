import type { Contract } from "../core/contract/contract.js";
import { runsRecorded } from "../core/source/artifact.js";
import { ContractpinError } from "../core/errors.js";
import type { PinnedServer } from "../core/lock/lock.js";
import type { ServerSource } from "../core/source/server-source.js";
import type { SurfaceContracts } from "../core/surface/surface.js";
import type { ReadContext } from "../sources/read-tools.js";
import { recordArtifact } from "./artifact.js";
import { mapConcurrent } from "./concurrency.js";
import { failureLines } from "./failure.js";
import { readStable } from "./pin.js";

/** A server to pin: what the lock will hold, and values to read it with now. */
export interface PinRequest {
  name: string;
  source: ServerSource;
  /**
   * Values of references the lock holds in place of literal secrets (from an
   * imported client config): used for this read only, never written.
   */
  extraEnv?: Record<string, string>;
  /** Pin its resources too (it pinned them before), whatever the command's --resources says. */
  resources?: boolean;
  /**
   * Pin exactly this much, whatever the command asks: null for tools only,
   * else the surface (an upgrade keeps a pin's scope). Default: the command's.
   */
  scope?: { resources: boolean } | null;
  /**
   * Record what the registry serves for its exactly pinned package (SPEC.md
   * 11): asked before the read, and an image is read by that digest.
   */
  artifact?: boolean;
}

/** The definitions of a lock's named servers, to pin again as they are. */
export function requestsFromLock(
  names: readonly string[],
  servers: Readonly<Record<string, PinnedServer>>,
): PinRequest[] {
  return names.map((name) => {
    const { tool_count: _c, digest: _d, tools: _t, surface, artifact, ...source } = servers[name]!;
    // A server that records its artifact records it again (the lock says so).
    return {
      name,
      source,
      ...(surface?.resources === undefined ? {} : { resources: true }),
      ...(artifact === undefined ? {} : { artifact: true }),
    };
  });
}

/** One server pinned afresh: its lock entry, and its contracts for the snapshots. */
export interface Pinned {
  server: PinnedServer;
  contracts: Contract[];
  /** The surface's contracts, when it was pinned (SPEC.md 10). */
  surfaceContracts?: SurfaceContracts;
}

/**
 * Reads each server and pins it afresh. All or nothing: a server that cannot
 * be read, or whose `repeat` reads differ (readStable), fails the whole run
 * (SERVER_UNREADABLE, naming every server that failed) once all reads have
 * finished, so no partial lock is ever written.
 *
 * @param repeat how many times each server is read (default 1).
 */
export async function pinAll(
  requests: readonly PinRequest[],
  ctx: ReadContext,
  concurrency: number,
  repeat = 1,
  onRead?: (name: string, ok: boolean, seconds: number) => void,
): Promise<Map<string, Pinned>> {
  const results = await mapConcurrent(requests, concurrency, async (request) => {
    const started = process.hrtime.bigint();
    const result = await pinOne(request, ctx, repeat);
    onRead?.(request.name, "pinned" in result, Number(process.hrtime.bigint() - started) / 1e9);
    return result;
  });
  // An interrupt wins over the failures it caused (every read cut short).
  ctx.signal?.throwIfAborted();
  const failures = results.flatMap((r) => ("error" in r ? [r.error] : []));
  if (failures.length === 1) throw failures[0];
  if (failures.length > 1) {
    const detail = failures.map((e) => failureLines(e).message);
    throw Object.assign(
      new ContractpinError(
        "SERVER_UNREADABLE",
        `${failures.length} servers could not be read; nothing was written`,
      ),
      { detail },
    );
  }
  return new Map(results.map((r) => [r.name, (r as { pinned: Pinned }).pinned]));
}

/** One request read and pinned, or the error that stopped it. */
async function pinOne(
  request: PinRequest,
  ctx: ReadContext,
  repeat: number,
): Promise<{ name: string; pinned: Pinned } | { name: string; error: unknown }> {
  const { name, source, extraEnv } = request;
  const readCtx: ReadContext =
    extraEnv === undefined ? { ...ctx } : { ...ctx, env: { ...ctx.env, ...extraEnv } };
  if (ctx.surface !== undefined && request.resources === true)
    readCtx.surface = { resources: true };
  if (request.scope === null) delete readCtx.surface;
  else if (request.scope !== undefined) readCtx.surface = request.scope;
  try {
    const artifact =
      request.artifact === true ? await recordArtifact(name, source, readCtx) : undefined;
    const { digests, contracts, surfaceContracts } = await readStable(
      name,
      artifact === undefined ? source : runsRecorded({ ...source, artifact }),
      readCtx,
      repeat,
    );
    const server = { ...source, ...digests } as PinnedServer;
    if (artifact !== undefined) server.artifact = artifact;
    const pinned: Pinned =
      surfaceContracts === undefined
        ? { server, contracts }
        : { server, contracts, surfaceContracts };
    return { name, pinned };
  } catch (error) {
    return { name, error };
  }
}
