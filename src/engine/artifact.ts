import { runnerPackage } from "../core/source/package-runner.js";
import {
  artifactFindings,
  artifactSubject,
  artifactUncheckedFinding,
  type Artifact,
} from "../core/source/artifact.js";
import { ContractpinError, isContractpinError } from "../core/errors.js";
import type { Finding } from "../core/findings/finding.js";
import type { PinnedServer } from "../core/lock/lock.js";
import type { ServerSource, StdioSource } from "../core/source/server-source.js";
import { failureLines } from "./failure.js";
import { lookupOptions, lookupSpawn, registryOf, type LookupContext } from "./outdated.js";

/**
 * Why `--artifacts` records nothing for a server (SPEC.md 11.2), or undefined
 * when it can: only an exactly pinned package of a runner whose registry
 * contractpin asks has an artifact. Pure.
 */
export function noArtifact(source: ServerSource): string | undefined {
  const pkg = source.transport === "stdio" ? runnerPackage(source.command) : undefined;
  if (pkg === undefined) return "it runs no package through a package runner";
  if (registryOf(pkg) === undefined) return `${pkg.invocation}: ecosystem not supported yet`;
  if (pkg.ecosystem === "docker" && pkg.spec.includes("@"))
    return `${pkg.spec} runs its image by digest already`;
  if (pkg.version === undefined)
    return `${pkg.spec} pins no exact version; pin one with 'contractpin upgrade'`;
  return undefined;
}

/**
 * The requests with `artifact` set where an artifact can be recorded
 * (`--artifacts`), and the servers for which none can, with why. Pure.
 */
export function askArtifacts<R extends { name: string; source: ServerSource; artifact?: boolean }>(
  requests: readonly R[],
): { requests: R[]; skipped: { name: string; why: string }[] } {
  const skipped: { name: string; why: string }[] = [];
  const out = requests.map((r) => {
    const why = noArtifact(r.source);
    if (why === undefined) return { ...r, artifact: true };
    skipped.push({ name: r.name, why });
    return r;
  });
  return { requests: out, skipped };
}

/**
 * Asks the server's registry what it serves for the pinned package, as
 * `outdated` asks it (the runner's configuration and credential, read with
 * the server's env and cwd).
 * @throws ContractpinError REGISTRY_UNREACHABLE (one line, no credential);
 *   USAGE when the server has no artifact ({@link noArtifact}).
 */
export async function servedArtifact(
  name: string,
  source: ServerSource,
  ctx: LookupContext,
): Promise<Artifact> {
  const why = noArtifact(source);
  if (why !== undefined)
    throw new ContractpinError(
      "USAGE",
      `server ${name}: --artifacts records nothing for it: ${why}`,
    );
  const stdio = source as StdioSource;
  const pkg = runnerPackage(stdio.command)!;
  const served = await registryOf(pkg)!.artifact(pkg, lookupSpawn(stdio, ctx), lookupOptions(ctx));
  return served.artifact;
}

/**
 * What the registry serves for a server's pinned package, to record it
 * (`--artifacts`); a registry that cannot be asked names the server, and
 * nothing is written.
 * @throws ContractpinError REGISTRY_UNREACHABLE (exit 1), USAGE (exit 2).
 */
export async function recordArtifact(
  name: string,
  source: ServerSource,
  ctx: LookupContext,
): Promise<Artifact> {
  try {
    return await servedArtifact(name, source, ctx);
  } catch (err) {
    ctx.signal?.throwIfAborted();
    if (isContractpinError(err, "REGISTRY_UNREACHABLE"))
      throw new ContractpinError(
        "REGISTRY_UNREACHABLE",
        `server ${name}: its artifact could not be recorded: ${err.message}`,
        { cause: err },
      );
    throw err;
  }
}

/** What verify found of a server's artifact. */
export type ArtifactCheck =
  | { status: "unchanged" }
  /** The registry serves other contents for the same version: `artifact-changed` findings. */
  | { status: "changed"; reason: string; findings: Finding[] }
  /** The registry could not be asked: never "unchanged". */
  | { status: "unchecked"; reason: string; findings: Finding[] };

/**
 * Asks the registry again for a server's recorded artifact and compares what
 * it serves now with the lock (SPEC.md 11.3): any difference is an
 * `artifact-changed` finding (critical) per member; a registry that cannot
 * be asked is `artifact-unchecked`, with its reason.
 */
export async function checkArtifact(
  name: string,
  pinned: PinnedServer,
  recorded: Artifact,
  ctx: LookupContext,
): Promise<ArtifactCheck> {
  let served: Artifact;
  try {
    served = await servedArtifact(name, pinned, ctx);
  } catch (err) {
    ctx.signal?.throwIfAborted();
    const reason = `its artifact could not be checked: ${failureLines(err).message}`;
    return { status: "unchecked", reason, findings: [artifactUncheckedFinding(name, reason)] };
  }
  const findings = artifactFindings(name, recorded, served);
  if (findings.length === 0) return { status: "unchanged" };
  const { name: pkg, version } = artifactSubject(recorded);
  const reason = `not started: its registry serves other contents for ${pkg} ${version} than the lock records (artifact-changed)`;
  return { status: "changed", reason, findings };
}
