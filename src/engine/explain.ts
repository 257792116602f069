import type { Contract } from "../core/contract/contract.js";
import type { Digest, ToolDigests } from "../core/contract/digest.js";
import { unreachableFinding } from "../core/findings/status-findings.js";
import { namedParts } from "../core/findings/name-skeleton.js";
import type { PinnedServer } from "../core/lock/lock.js";
import { fieldDigestMismatches } from "../core/lock/lock-check.js";
import { readSnapshotEntries, type WantedEntry } from "../io/snapshot-entries.js";
import { snapshotPath } from "../io/snapshot-file.js";
import { explainServer, type ItemSides, type ServerExplained } from "./explain-server.js";
import { surfaceSides } from "./surface-sides.js";
import type { VerifiedServer } from "./verify.js";

/**
 * Explains each verified server's drift (explainServer, every kind), with
 * the pinned contracts from the snapshots beside the lock. The snapshots are
 * read only when some tool drifted or was removed (a clean verify never reads
 * them), each entry used only when its digest is the lock's tool digest (a
 * missing, stale or edited one gives one warning, and that tool's changed
 * fields are unknown: the lock's field digests alone confirm nothing). Never
 * changes a verdict.
 */
export async function explainDrift(
  lockFile: string,
  servers: Readonly<Record<string, PinnedServer>>,
  verified: readonly VerifiedServer[],
  warn: (message: string) => void,
): Promise<Map<string, ServerExplained>> {
  const wanted: (WantedEntry & { drifted: boolean })[] = [];
  for (const { finding } of verified) {
    for (const tool of finding.tools) {
      if (tool.status !== "drifted" && tool.status !== "removed") continue;
      const entry = { server: finding.name, tool: tool.name, pinned: tool.pinned as Digest };
      wanted.push({ ...entry, drifted: tool.status === "drifted" });
    }
  }
  const before = new Map<string, Contract[]>();
  if (wanted.length > 0) {
    const path = snapshotPath(lockFile);
    const read = await readSnapshotEntries(path, wanted);
    if (read.warning !== undefined) warn(read.warning);
    else if (!read.file) {
      warn(
        `${path}: no contract snapshots (pinned with --no-snapshot, or before they existed); the changed fields are unknown; 'contractpin update' writes them`,
      );
    }
    read.entries.forEach((entry, i) => {
      const w = wanted[i]!;
      if (entry.contract !== undefined) {
        const pinned = servers[w.server]!.tools;
        if (Object.hasOwn(pinned, w.tool)) {
          const why = fieldDigestWarning(lockFile, w, pinned[w.tool]!, entry.contract);
          if (why !== undefined) warn(why);
        }
        const list = before.get(w.server) ?? [];
        list.push(entry.contract);
        before.set(w.server, list);
      } else if (w.drifted && entry.warning !== undefined) warn(entry.warning);
    });
  }
  const parts = await surfaceSides(lockFile, verified, warn);
  const explained = new Map<string, ServerExplained>();
  for (const { finding, changed, surfaceContracts, serverFindings } of verified) {
    // An artifact that changed or could not be checked is why the server was not read: its findings say so.
    const own = serverFindings ?? [];
    if (finding.status === "unreachable") {
      const why = own.length > 0 ? [...own] : [unreachableFinding(finding.name, finding.error)];
      explained.set(finding.name, { tools: new Map(), findings: why });
      continue;
    }
    const sides: ItemSides = {
      toolsBefore: before.get(finding.name) ?? [],
      toolsAfter: changed,
      pinnedNames: Object.keys(servers[finding.name]!.tools),
      otherParts: namedParts([], surfaceContracts),
      parts: parts.get(finding.name),
    };
    explained.set(finding.name, explainServer(finding, sides, own));
  }
  return explained;
}

/**
 * The warning for a lock whose field digests of a tool do not follow from the
 * tool's snapshot entry (matching the lock's tool digest): the lock was
 * edited by hand, and its field digests name fields that did not change (or
 * hide one that did). The report shows the fields computed from the contracts.
 */
export function fieldDigestWarning(
  lockFile: string,
  where: { server: string; tool: string },
  pinned: ToolDigests,
  contract: Contract,
): string | undefined {
  const wrong = fieldDigestMismatches(pinned.fields, contract);
  if (wrong.length === 0) return undefined;
  return `${lockFile}: the field digests of tool ${JSON.stringify(where.tool)} of server ${JSON.stringify(where.server)} do not follow from its snapshot (${wrong.join(", ")}: was the lock edited by hand?); the changed fields shown are computed from the contracts`;
}
