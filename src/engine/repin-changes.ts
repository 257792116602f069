import {
  compareServer,
  type ServerFinding,
  compareSurface,
  withSurface,
} from "../core/contract/compare.js";
import type { Contract } from "../core/contract/contract.js";
import type { PinnedServer } from "../core/lock/lock.js";
import type { SurfaceContracts } from "../core/surface/surface.js";
import { runnerPackage } from "../core/source/package-runner.js";
import { sourceFindings } from "../core/findings/server-source.js";
import { explainDrift } from "./explain.js";
import type { ServerExplained } from "./explain-server.js";

/** What re-pinning changed: each server's comparison, and what is known of it. */
export interface RepinChanges {
  findings: ServerFinding[];
  explained: Map<string, ServerExplained>;
}

/**
 * What re-pinning `names` (each in `previous`) changed: the old pins against
 * the new, classified as verify classifies a drift (the findings of each
 * drifted, added or removed tool), and each drifted tool's changed fields computed from its old
 * contract (the snapshot beside `lockFile`, when its entry matches the old
 * lock) and its new one. Call it before the snapshots are rewritten. The old
 * lock's field digests confirm nothing (spec 4.2): without a matching entry
 * the changed fields are unknown. A server whose launch line changed (init
 * --force from an edited config) drifted even with the same tools: its
 * `server-source-changed` (and `package-name-confusable`) findings come first
 * among the server's findings, as `diff` gives them. Warnings about the old
 * snapshots are not given: the re-pin replaces them.
 */
export async function repinChanges(
  lockFile: string,
  previous: Readonly<Record<string, PinnedServer>>,
  names: readonly string[],
  pinned: ReadonlyMap<
    string,
    { server: PinnedServer; contracts: Contract[]; surfaceContracts?: SurfaceContracts }
  >,
): Promise<RepinChanges> {
  const verified = names.map((name) => {
    const read = pinned.get(name)!;
    const was = previous[name]!;
    const tools = compareServer(name, was, read.server);
    // The surface as verify compares it, when both pins hold one (a pin that
    // grows from its tools to its surface, or back, is a change of scope).
    const finding =
      was.surface === undefined || read.server.surface === undefined
        ? tools
        : withSurface(tools, compareSurface(was.surface, read.server.surface));
    // As verify: the new contracts of the drifted and the added tools.
    const moved = new Set(
      finding.tools
        .filter((t) => t.status === "drifted" || t.status === "added")
        .map((t) => t.name),
    );
    return {
      finding,
      changed: read.contracts.filter((c) => moved.has(c.name)),
      ...(read.surfaceContracts === undefined ? {} : { surfaceContracts: read.surfaceContracts }),
    };
  });
  const explained = await explainDrift(lockFile, previous, verified, () => {});
  for (const { finding } of verified) {
    const launch = sourceFindings(
      finding.name,
      previous[finding.name]!,
      pinned.get(finding.name)!.server,
      runnerPackage,
    );
    if (launch.length === 0) continue;
    if (finding.status === "ok") finding.status = "drift";
    explained.get(finding.name)!.findings.unshift(...launch);
  }
  return { findings: verified.map((v) => v.finding), explained };
}
