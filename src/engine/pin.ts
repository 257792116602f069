import type { Contract } from "../core/contract/contract.js";
import { digestToolContracts, serverDigest, type ServerDigests } from "../core/contract/digest.js";
import { setMember } from "../core/json/json-value.js";
import { ContractpinError } from "../core/errors.js";
import type { ServerSource } from "../core/source/server-source.js";
import { compareReads, describeUnstable } from "../core/contract/stability.js";
import {
  digestSurface,
  unstableSurface,
  withSurfaceDigests,
  type SurfaceContracts,
} from "../core/surface/surface.js";
import { visibleText } from "../core/visible-text.js";
import { readServer, type ReadContext } from "../sources/read-tools.js";
import { guardSecrets } from "../core/source/server-secrets.js";
import { failureLines } from "./failure.js";

/** A server just read: what the lock pins, and the contracts the snapshots keep. */
export interface ServerRead {
  digests: ServerDigests;
  /** Each tool's contract (spec 2), from the same projection the digests came from. */
  contracts: Contract[];
  /** The surface's contracts (SPEC.md 10), when it was read. */
  surfaceContracts?: SurfaceContracts;
}

/**
 * Reads a server and digests its tools, keeping their contracts. Any failure is SERVER_UNREADABLE
 * (exit 1: the server, not contractpin, is what failed), naming the server,
 * with the cause's detail lines kept and every expanded value shown as its
 * reference (guardSecrets).
 *
 * @param where said after the server's name in a failure, such as ` (read 2 of 3)` (default none).
 */
export async function readDigests(
  name: string,
  source: ServerSource,
  ctx: ReadContext,
  where = "",
): Promise<ServerRead> {
  const guard = guardSecrets(name, source, ctx);
  try {
    // ctx.surface asks for the whole surface; a tools-only dump has none to give.
    const read = await readServer(source, guard.ctx);
    const tools = digestToolContracts(read.tools);
    if (read.surface === undefined) return tools;
    const surface = digestSurface(read.surface);
    return {
      digests: withSurfaceDigests(tools.digests, surface.digests),
      contracts: tools.contracts,
      surfaceContracts: surface.contracts,
    };
  } catch (err) {
    const { message, detail } = failureLines(err, guard.redact);
    // The cause may quote what was just hidden: keep it only when nothing was expanded.
    const options = guard.expanded ? {} : { cause: err };
    throw Object.assign(
      new ContractpinError("SERVER_UNREADABLE", `server ${name}${where}: ${message}`, options),
      { detail },
    );
  }
}

/**
 * Reads a server `repeat` times, one read after another, and pins it only if
 * every read served the same tools: a server that puts a timestamp, a random
 * id or a session URL into a tool would fail every verify. Reads that differ
 * are SERVER_UNREADABLE (exit 1, as a server that could not be read), in one
 * line that names the tools and fields that changed. A warning the server
 * gives on every read is shown once.
 *
 * @param repeat how many reads (default 1: a single read, as {@link readDigests}).
 * @returns the first read (every read pins the same lock entry and contracts).
 */
export async function readStable(
  name: string,
  source: ServerSource,
  ctx: ReadContext,
  repeat = 1,
): Promise<ServerRead> {
  if (repeat <= 1) return readDigests(name, source, ctx);
  const warned = new Set<string>();
  const readCtx: ReadContext = {
    ...ctx,
    warn: (message) => {
      if (!warned.has(message)) ctx.warn(message);
      warned.add(message);
    },
  };
  const first = await readDigests(name, source, readCtx, ` (read 1 of ${repeat})`);
  const reads = [first.digests];
  for (let read = 2; read <= repeat; read++) {
    ctx.signal?.throwIfAborted();
    reads.push((await readDigests(name, source, readCtx, ` (read ${read} of ${repeat})`)).digests);
  }
  const unstable = compareReads(reads.map((r) => ({ ...r, digest: toolsOnlyDigest(r) })));
  const surface = unstableSurface(reads.map((r) => r.surface));
  if (unstable.length === 0 && surface.length > 0) {
    const { redact } = guardSecrets(name, source, ctx);
    throw new ContractpinError(
      "SERVER_UNREADABLE",
      redact(
        `server ${name}: unstable between ${repeat} reads: ${surface.map((p) => visibleText(p)).join(", ")}`,
      ),
    );
  }
  if (unstable.length > 0) {
    // Tool names are server text: one that repeats an expanded secret shows its reference.
    const { redact } = guardSecrets(name, source, ctx);
    throw new ContractpinError(
      "SERVER_UNREADABLE",
      redact(`server ${name}: ${describeUnstable(repeat, unstable)}`),
    );
  }
  return first;
}

/** The v1 server digest of a read, whose `digest` may cover its surface too. */
function toolsOnlyDigest(read: ServerDigests): ServerDigests["digest"] {
  if (read.surface === undefined) return read.digest;
  const names: Record<string, string> = {};
  for (const name of Object.keys(read.tools)) setMember(names, name, read.tools[name]!.digest);
  return serverDigest(names);
}
