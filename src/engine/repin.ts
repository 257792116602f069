import type { PinnedServer } from "../core/lock.js";
import type { ReadContext } from "../sources/read-tools.js";
import { ContractpinError } from "../core/errors.js";
import { mapConcurrent } from "./concurrency.js";
import { failureLines } from "./failure.js";
import { readDigests } from "./pin.js";

/**
 * Re-reads each named server of a lock with its own definition and pins it
 * afresh. All or nothing: a server that cannot be read fails the whole
 * run (SERVER_UNREADABLE, naming every server that failed) once all reads
 * have finished, so no partial lock is ever written.
 */
export async function repinAll(
  names: readonly string[],
  servers: Readonly<Record<string, PinnedServer>>,
  ctx: ReadContext,
  concurrency: number,
): Promise<Map<string, PinnedServer>> {
  const results = await mapConcurrent(names, concurrency, async (name) => {
    const { tool_count: _c, digest: _d, tools: _t, ...source } = servers[name]!;
    try {
      return {
        name,
        server: { ...source, ...(await readDigests(name, source, ctx)) } as PinnedServer,
      };
    } catch (error) {
      return { name, error };
    }
  });
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
  return new Map(results.map((r) => [r.name, (r as { server: PinnedServer }).server]));
}
