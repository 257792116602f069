import {
  compareServer,
  unreachableServer,
  type CompareOptions,
  type ServerFinding,
} from "../core/compare.js";
import { digestTools } from "../core/digest.js";
import type { PinnedServer } from "../core/lock.js";
import { checkAllowedVariables } from "../core/server-source.js";
import { readServerTools, type ReadContext } from "../sources/read-tools.js";
import { failureLines, guardSecrets } from "./failure.js";

/** How to verify a server. */
export interface VerifyOptions extends CompareOptions {
  /**
   * The only variables the server's definition may refer to (`--allow-env`);
   * any other reference fails the server before it is started. Default: any.
   */
  allowEnv?: ReadonlySet<string>;
}

/**
 * Reads one pinned server and compares it with the lock. Any failure to read
 * it, whatever the cause, is an unreachable finding: never "ok" (spec 6). Its
 * message and detail show every expanded value as its reference (guardSecrets).
 */
export async function verifyServer(
  name: string,
  pinned: PinnedServer,
  ctx: ReadContext,
  options: VerifyOptions,
): Promise<ServerFinding> {
  const guard = guardSecrets(name, pinned, ctx);
  try {
    if (options.allowEnv !== undefined) checkAllowedVariables(name, pinned, options.allowEnv);
    const live = digestTools(await readServerTools(pinned, guard.ctx));
    return compareServer(name, pinned, live, options);
  } catch (err) {
    const { message, detail } = failureLines(err, guard.redact);
    return unreachableServer(name, pinned, message, detail);
  }
}
