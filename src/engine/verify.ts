import {
  compareServer,
  unreachableServer,
  type CompareOptions,
  type ServerFinding,
} from "../core/compare.js";
import { digestTools } from "../core/digest.js";
import type { PinnedServer } from "../core/lock.js";
import { readServerTools, type ReadContext } from "../sources/read-tools.js";
import { failureLines } from "./failure.js";

/**
 * Reads one pinned server and compares it with the lock. Any failure to read
 * it, whatever the cause, is an unreachable finding: never "ok" (spec 6).
 */
export async function verifyServer(
  name: string,
  pinned: PinnedServer,
  ctx: ReadContext,
  options: CompareOptions,
): Promise<ServerFinding> {
  try {
    const live = digestTools(await readServerTools(pinned, ctx));
    return compareServer(name, pinned, live, options);
  } catch (err) {
    const { message, detail } = failureLines(err);
    return unreachableServer(name, pinned, message, detail);
  }
}
