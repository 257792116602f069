import {
  compareServer,
  unreachableServer,
  type CompareOptions,
  type ServerFinding,
} from "../core/compare.js";
import type { Contract } from "../core/contract.js";
import { digestToolContracts } from "../core/digest.js";
import type { PinnedServer } from "../core/lock.js";
import { checkAllowedVariables, type AllowedVariables } from "../core/env-allowance.js";
import { readServerTools, type ReadContext } from "../sources/read-tools.js";
import { failureLines, guardSecrets } from "./failure.js";

/** How to verify a server. */
export interface VerifyOptions extends CompareOptions {
  /**
   * The only variables the server's definition may refer to (`--allow-env`),
   * each anywhere or only at the origins it is bound to; any other use fails
   * the server before it is started or contacted. Default: any.
   */
  allowEnv?: AllowedVariables;
}

/** One server verified: the verdict, and the live contracts of the tools that are not unchanged. */
export interface VerifiedServer {
  finding: ServerFinding;
  /** The live contracts of the drifted and added tools (to show the change), from the one read. */
  changed: Contract[];
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
): Promise<VerifiedServer> {
  const guard = guardSecrets(name, pinned, ctx);
  try {
    if (options.allowEnv !== undefined)
      checkAllowedVariables(name, pinned, options.allowEnv, ctx.env);
    // Field digests only say which part of a tool moved: an unchanged tool needs none.
    const live = digestToolContracts(
      await readServerTools(pinned, guard.ctx),
      (tool, digest) => !Object.hasOwn(pinned.tools, tool) || pinned.tools[tool]!.digest !== digest,
    );
    const finding = compareServer(name, pinned, live.digests, options);
    if (finding.tools.every((t) => t.status === "unchanged")) return { finding, changed: [] };
    const moved = new Set(
      finding.tools
        .filter((t) => t.status === "drifted" || t.status === "added")
        .map((t) => t.name),
    );
    return { finding, changed: live.contracts.filter((c) => moved.has(c.name)) };
  } catch (err) {
    const { message, detail } = failureLines(err, guard.redact);
    return { finding: unreachableServer(name, pinned, message, detail), changed: [] };
  }
}
