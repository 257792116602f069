import type { PinnedServer } from "../core/lock/lock.js";
import { toFinding, type Finding } from "../core/findings/finding.js";
import type { JsonValue } from "../core/json/json-value.js";
import { findOutdated, serverPackage, type LookupContext, type OutdatedEntry } from "./outdated.js";

/**
 * The first-sight findings about what each named server runs (pinned by a
 * pin command, or audited): a `package-runner-unpinned` finding for a server
 * whose command runs a package or image through a package runner without an
 * exact version (`npx -y pkg`, `uvx pkg`, `docker run image` or
 * `image:latest`), since the code that runs can then change with no change
 * to the repository. Its `after` names the version that would run now, asked
 * of the registry as `contractpin outdated` asks it (the registry and
 * credential the runner would use), or says why it could not be asked:
 * never left out for that. Servers pinned exactly ask no registry.
 *
 * @returns the finding of each server that has one, by name.
 */
export async function runnerFindings(
  names: readonly string[],
  servers: Readonly<Record<string, PinnedServer>>,
  ctx: LookupContext,
  concurrency: number,
): Promise<Map<string, Finding>> {
  const unpinned = names.filter((name) => {
    const pkg = serverPackage(servers[name]!);
    return pkg !== undefined && pkg.version === undefined;
  });
  const found = new Map<string, Finding>();
  if (unpinned.length === 0) return found;
  for (const entry of await findOutdated(unpinned, servers, ctx, concurrency)) {
    const finding = runnerFinding(entry);
    if (finding !== undefined) found.set(entry.name, finding);
  }
  return found;
}

/**
 * The package-runner-unpinned finding of what `outdated` found for a server
 * that runs a package without an exact version: `after` holds the package,
 * runner and ecosystem, and either the version that would run now with the
 * registry asked (`latest`, `registry`) or why none is known (`unknown`).
 * Undefined for a server that runs no package, or one pinned exactly. Pure.
 */
export function runnerFinding(entry: OutdatedEntry): Finding | undefined {
  if (entry.status === "no-package" || entry.status === "installed") return undefined;
  if (entry.pkg.version !== undefined) return undefined;
  const { pkg } = entry;
  const after: Record<string, JsonValue> = {
    package: pkg.name,
    runner: pkg.invocation,
    ecosystem: pkg.ecosystem,
  };
  if (entry.status === "unpinned") {
    after["latest"] = entry.latest;
    after["registry"] = entry.registry;
  } else if (entry.status === "unreachable") {
    after["unknown"] = entry.reason;
  } else {
    after["unknown"] = `contractpin cannot ask the registry of ${pkg.invocation} yet`;
  }
  const draft = {
    rule: "package-runner-unpinned",
    pointer: `/command/${pkg.argIndex}`,
    after,
  } as const;
  return toFinding(draft, undefined, entry.name);
}
