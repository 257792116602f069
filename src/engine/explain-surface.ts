import { getMember, isJsonObject, type JsonValue } from "../core/json-value.js";
import {
  surfaceKey,
  type SurfaceExplained,
  type SurfaceFinding,
} from "../core/surface/compare-surface.js";
import { kindById } from "../core/surface/kinds.js";
import type { SurfaceContracts } from "../core/surface/surface.js";
import { readSnapshot, snapshotPath, type Snapshot } from "../io/snapshot-file.js";
import { pinnedPart } from "../io/snapshot-surface.js";
import type { VerifiedServer } from "./verify.js";

/**
 * The pinned and live contracts of every surface part that moved, per server
 * (by surfaceKey): the pinned one from the snapshots beside the lock when its
 * entry matches the lock's digest, the live one from the read. The snapshots
 * are read only when some part moved; never changes a verdict.
 */
export async function explainSurfaces(
  lockFile: string,
  verified: readonly VerifiedServer[],
  warn: (message: string) => void,
): Promise<Map<string, Map<string, SurfaceExplained>>> {
  const out = new Map<string, Map<string, SurfaceExplained>>();
  const moved = verified.filter((v) =>
    (v.finding.surface ?? []).some((f) => f.status !== "unchanged"),
  );
  if (moved.length === 0) return out;
  let snapshot: Snapshot | undefined;
  if (moved.some((v) => v.finding.surface!.some((f) => f.status === "drifted"))) {
    const read = await readSnapshot(snapshotPath(lockFile));
    if (read.warning !== undefined) warn(read.warning);
    snapshot = read.snapshot;
  }
  for (const { finding, surfaceContracts } of moved) {
    const entry = snapshot?.surfaces?.[finding.name];
    const parts = new Map<string, SurfaceExplained>();
    for (const f of finding.surface!) {
      if (f.status === "unchanged") continue;
      const explained: SurfaceExplained = {};
      const before = Object.hasOwn(snapshot?.surfaces ?? {}, finding.name)
        ? pinnedPart(entry, f)
        : undefined;
      const after = livePart(surfaceContracts, f);
      if (before !== undefined) explained.before = before;
      if (after !== undefined) explained.after = after;
      parts.set(surfaceKey(f), explained);
    }
    out.set(finding.name, parts);
  }
  return out;
}

function livePart(
  contracts: SurfaceContracts | undefined,
  f: SurfaceFinding,
): JsonValue | undefined {
  if (contracts === undefined || f.status === "removed") return undefined;
  if (f.part === "instructions") return contracts.instructions;
  if (f.key === undefined) return undefined;
  const kind = kindById(f.part);
  return (contracts[f.part] ?? []).find((c) => isJsonObject(c) && getMember(c, kind.key) === f.key);
}
