import { digestTools, type ServerDigests } from "../core/digest.js";
import { ContractpinError } from "../core/errors.js";
import type { ServerSource } from "../core/server-source.js";
import { readServerTools, type ReadContext } from "../sources/read-tools.js";
import { failureLines, guardSecrets } from "./failure.js";

/**
 * Reads a server and digests its tools. Any failure is SERVER_UNREADABLE
 * (exit 1: the server, not contractpin, is what failed), naming the server,
 * with the cause's detail lines kept and every expanded value shown as its
 * reference (guardSecrets).
 */
export async function readDigests(
  name: string,
  source: ServerSource,
  ctx: ReadContext,
): Promise<ServerDigests> {
  const guard = guardSecrets(name, source, ctx);
  try {
    return digestTools(await readServerTools(source, guard.ctx));
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
