import { withVersion, type RunnerPackage } from "../core/source/package-runner.js";
import { unreachableServer } from "../core/contract/compare.js";
import type { PinnedServer } from "../core/lock/lock.js";
import type { ServerSource } from "../core/source/server-source.js";
import type { ReadContext } from "../sources/read-tools.js";
import { mapConcurrent } from "./concurrency.js";
import { failureLines } from "./failure.js";
import { lookupVersions, registryOf, serverPackage } from "./outdated.js";
import { verifyServer, type VerifiedServer } from "./verify.js";

/** One server's candidate version, read and compared with the lock as verify compares a live server. */
export interface UpgradeCandidate {
  name: string;
  pkg: RunnerPackage;
  /** The version pinned now (undefined for an unpinned `npx -y pkg`). */
  from?: string;
  to: string;
  /** The candidate's definition: the pinned one with the version in its command replaced. */
  source: ServerSource;
  /** verify's result for the candidate: an unreachable finding when it cannot be looked up, started or read. */
  verified: VerifiedServer;
}

/** Why a named server cannot be upgraded, or undefined when it can: checked before anything is read. */
export function notUpgradable(server: PinnedServer): string | undefined {
  const pkg = serverPackage(server);
  if (pkg === undefined) return "it does not run a package through a package runner";
  if (pkg.installed)
    return `${pkg.invocation} is told not to install, so it runs the installed ${pkg.name}: upgrade what installs it (a dependency of the project)`;
  if (registryOf(pkg) === undefined) return `${pkg.invocation}: ecosystem not supported yet`;
  return undefined;
}

/**
 * Finds each server's candidate (`to`, else the version its registry's
 * `latest` names) and reads it exactly as `verify` reads a pinned server
 * (verifyServer: the same environment rules, deadlines and secret handling),
 * comparing it with the pinned contract. A registry that cannot be asked, or a
 * version it does not offer, is an unreachable finding naming why: never
 * "unchanged". Servers already at the candidate version are left out.
 */
export async function readCandidates(
  names: readonly string[],
  servers: Readonly<Record<string, PinnedServer>>,
  ctx: ReadContext,
  concurrency: number,
  to?: string,
): Promise<UpgradeCandidate[]> {
  const found = await mapConcurrent(names, concurrency, async (name) => {
    const pinned = servers[name]!;
    const pkg = serverPackage(pinned)!;
    const from = pkg.version;
    const base = { name, pkg, ...(from === undefined ? {} : { from }) };
    const unreachable = (message: string, target: string) => ({
      ...base,
      to: target,
      source: pinned,
      verified: { finding: unreachableServer(name, pinned, message), changed: [] },
    });
    const registry = registryOf(pkg)!;
    let target: string;
    try {
      const offered = await lookupVersions(pkg, pinned, ctx);
      const wanted = to ?? offered.latest;
      // The version as the registry spells it: PEP 440 takes `--to 1.1` for an offered 1.1.0.
      const found =
        offered.versions.find((v) => v === wanted) ??
        offered.versions.find((v) => registry.compare(v, wanted) === 0);
      if (found === undefined) {
        // Named as the command would name it (pkg@1.2.3, pkg==1.2.3, image:tag).
        const spec = withVersion([pkg.spec], { ...pkg, argIndex: 0 }, wanted)[0];
        return unreachable(`${spec} is not on ${offered.registry}`, wanted);
      }
      target = found;
    } catch (err) {
      ctx.signal?.throwIfAborted();
      return unreachable(failureLines(err).message, to ?? "latest");
    }
    if (from !== undefined && registry.compare(target, from) === 0) return undefined;
    const command = withVersion((pinned as { command: string[] }).command, pkg, target);
    // The pinned version's artifact is not the candidate's: the write records the candidate's.
    const { artifact: _a, ...rest } = pinned;
    const candidate = { ...rest, command } as PinnedServer;
    const { tool_count: _c, digest: _d, tools: _t, surface: _s, ...source } = candidate;
    return { ...base, to: target, source, verified: await verifyServer(name, candidate, ctx, {}) };
  });
  return found.filter((c): c is UpgradeCandidate => c !== undefined);
}

/** Checks --to for an upgradable server: a version its registry could offer, since it goes into a command line. */
export function validTarget(server: PinnedServer, version: string): boolean {
  return registryOf(serverPackage(server)!)!.isVersion(version);
}
