import type { Contract } from "../core/contract.js";
import { digestToolContracts, type ServerDigests } from "../core/digest.js";
import { ContractpinError } from "../core/errors.js";
import type { ServerSource } from "../core/server-source.js";
import { readServerTools, type ReadContext } from "../sources/read-tools.js";
import { failureLines, guardSecrets } from "./failure.js";

/** A server just read: what the lock pins, and the contracts the snapshots keep. */
export interface ServerRead {
  digests: ServerDigests;
  /** Each tool's contract (spec 2), from the same projection the digests came from. */
  contracts: Contract[];
}

/**
 * Reads a server and digests its tools, keeping their contracts. Any failure is SERVER_UNREADABLE
 * (exit 1: the server, not contractpin, is what failed), naming the server,
 * with the cause's detail lines kept and every expanded value shown as its
 * reference (guardSecrets).
 */
export async function readDigests(
  name: string,
  source: ServerSource,
  ctx: ReadContext,
): Promise<ServerRead> {
  const guard = guardSecrets(name, source, ctx);
  try {
    return digestToolContracts(await readServerTools(source, guard.ctx));
  } catch (err) {
    const { message, detail } = failureLines(err, guard.redact);
    // The cause may quote what was just hidden: keep it only when nothing was expanded.
    const options = guard.expanded ? {} : { cause: err };
    throw Object.assign(
      new ContractpinError("SERVER_UNREADABLE", `server ${name}: ${message}`, options),
      { detail },
    );
  }
}
