import {
  unreachableServer,
  type CompareOptions,
  type ServerFinding,
} from "../core/contract/compare.js";
import { compareServed } from "../core/contract/compare-served.js";
import type { Contract } from "../core/contract/contract.js";
import type { PinnedServer } from "../core/lock/lock.js";
import { runsRecorded } from "../core/source/artifact.js";
import type { Finding } from "../core/findings/finding.js";
import { checkAllowedVariables, type AllowedVariables } from "../core/source/env-allowance.js";
import type { SurfaceContracts } from "../core/surface/surface.js";
import { readServer, type ReadContext } from "../sources/read-tools.js";
import { guardSecrets } from "../core/source/server-secrets.js";
import { failureLines } from "./failure.js";

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
  /** The live surface's contracts, for a server that pins its surface and moved. */
  surfaceContracts?: SurfaceContracts;
  /** A server pinned on its tools only that serves more (instructions, prompts, resources). */
  servesMore?: boolean;
  /**
   * Findings about the server itself, beside its items: what its registry
   * serves now for its recorded artifact (SPEC.md 11.3), changed or unchecked.
   */
  serverFindings?: Finding[];
}

/**
 * Reads one pinned server and compares it with the lock. Any failure to read
 * it, whatever the cause, is an unreachable finding: never "ok" (spec 6). Its
 * message and detail show every expanded value as its reference (guardSecrets).
 * A server that records its artifact has its registry asked first
 * (checkArtifact): other contents for the pinned version (`artifact-changed`)
 * or a registry that cannot be asked (`artifact-unchecked`) fail the server
 * without starting it (never "ok"); else an image is run by the recorded
 * digest (runsRecorded).
 */
export async function verifyServer(
  name: string,
  pinned: PinnedServer,
  ctx: ReadContext,
  options: VerifyOptions,
): Promise<VerifiedServer> {
  // The artifact first (SPEC.md 11.3): a registry that cannot be asked fails the
  // server before it is started, as an unset variable does.
  // Loaded only then: a lock without artifacts loads no registry client.
  const artifact =
    pinned.artifact === undefined
      ? undefined
      : await (await import("./artifact.js")).checkArtifact(name, pinned, pinned.artifact, ctx);
  // Other contents under the pinned version are not started: they are not what was pinned.
  if (artifact !== undefined && artifact.status !== "unchanged") {
    const finding = unreachableServer(name, pinned, artifact.reason);
    return { finding, changed: [], serverFindings: artifact.findings };
  }
  return verifyContract(name, runsRecorded(pinned), ctx, options);
}

/** Reads one pinned server and compares its contract with the lock. */
async function verifyContract(
  name: string,
  pinned: PinnedServer,
  ctx: ReadContext,
  options: VerifyOptions,
): Promise<VerifiedServer> {
  const guard = guardSecrets(name, pinned, ctx);
  try {
    if (options.allowEnv !== undefined)
      checkAllowedVariables(name, pinned, options.allowEnv, ctx.env);
    // A server pinned on its tools only is read on its tools only (SPEC.md 10.6).
    const pinnedSurface = pinned.surface;
    const read = await readServer(pinned, {
      ...guard.ctx,
      surface:
        pinnedSurface === undefined
          ? undefined
          : { resources: pinnedSurface.resources !== undefined },
    });
    const compared = compareServed(name, pinned, read, options);
    // A server pinned on its tools only that serves more: verify says how to pin the rest.
    const more =
      pinnedSurface === undefined && read.servesMore === true ? { servesMore: true } : {};
    return { ...compared, ...more };
  } catch (err) {
    const { message, detail } = failureLines(err, guard.redact);
    return { finding: unreachableServer(name, pinned, message, detail), changed: [] };
  }
}
