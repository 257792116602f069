import { type ServerFinding, surfaceKey, type SurfaceExplained } from "../core/compare.js";
import type { Finding } from "../core/findings/finding.js";
import { lookAlikes, namedParts, type NamedPart } from "../core/findings/name-skeleton.js";
import type { SurfaceContracts } from "../core/surface/surface.js";
import { partOf, surfaceFindings } from "../core/surface/findings.js";
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
): Promise<Map<string, { parts: Map<string, SurfaceExplained>; findings: Finding[] }>> {
  const out = new Map<string, { parts: Map<string, SurfaceExplained>; findings: Finding[] }>();
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
    const alike = liveLookAlikes(finding, surfaceContracts);
    const parts = new Map<string, SurfaceExplained>();
    const findings: Finding[] = [];
    for (const f of finding.surface!) {
      if (f.status === "unchanged") continue;
      const explained: SurfaceExplained = {};
      const before = Object.hasOwn(snapshot?.surfaces ?? {}, finding.name)
        ? pinnedPart(entry, f)
        : undefined;
      const after = f.status === "removed" ? undefined : partOf(surfaceContracts, f);
      if (before !== undefined) explained.before = before;
      if (after !== undefined) explained.after = after;
      parts.set(surfaceKey(f), explained);
      findings.push(...surfaceFindings(finding.name, f, explained, alike));
    }
    out.set(finding.name, { parts, findings });
  }
  return out;
}

/** One side of a diff, for its surface contracts: a dump's own, or a lock's snapshots. */
export interface SurfaceSide {
  /** The side as the user named it, for a warning. */
  path: string;
  kind: "lock" | "dump";
  snapshots?: string;
  contractsOf: (server: string) => SurfaceContracts | undefined;
}

/**
 * For `diff`: the surface parts that moved between two sides, explained from
 * each side's contracts (a dump's, or a lock's snapshots when they match),
 * and their findings. Never changes a verdict.
 */
export async function explainSurfaceDiff(
  findings: readonly ServerFinding[],
  old: SurfaceSide,
  next: SurfaceSide,
  warn: (message: string) => void,
): Promise<Map<string, { parts: Map<string, SurfaceExplained>; findings: Finding[] }>> {
  const out = new Map<string, { parts: Map<string, SurfaceExplained>; findings: Finding[] }>();
  const moved = findings.filter((f) => (f.surface ?? []).some((p) => p.status !== "unchanged"));
  if (moved.length === 0) return out;
  const oldSnap = old.kind === "lock" ? await snapshotOf(old, warn) : undefined;
  const newSnap = next.kind === "lock" ? await snapshotOf(next, warn) : undefined;
  for (const finding of moved) {
    const parts = new Map<string, SurfaceExplained>();
    const found: Finding[] = [];
    const alike = liveLookAlikes(
      finding,
      next.kind === "dump" ? next.contractsOf(finding.name) : undefined,
    );
    for (const f of finding.surface!) {
      if (f.status === "unchanged") continue;
      const explained: SurfaceExplained = {};
      const before =
        f.status === "added"
          ? undefined
          : old.kind === "dump"
            ? partOf(old.contractsOf(finding.name), f)
            : pinnedPart(oldSnap?.surfaces?.[finding.name], f);
      const after =
        f.status === "removed"
          ? undefined
          : next.kind === "dump"
            ? partOf(next.contractsOf(finding.name), f)
            : pinnedPart(newSnap?.surfaces?.[finding.name], {
                ...f,
                ...(f.live === undefined ? {} : { pinned: f.live }),
              });
      if (before !== undefined) explained.before = before;
      if (after !== undefined) explained.after = after;
      parts.set(surfaceKey(f), explained);
      found.push(...surfaceFindings(finding.name, f, explained, alike));
    }
    out.set(finding.name, { parts, findings: found });
  }
  return out;
}

async function snapshotOf(
  side: SurfaceSide,
  warn: (message: string) => void,
): Promise<Snapshot | undefined> {
  if (side.snapshots === undefined) return undefined;
  const read = await readSnapshot(side.snapshots);
  if (read.warning !== undefined) warn(read.warning);
  else if (read.snapshot === undefined)
    warn(
      `${side.path}: no contract snapshots at ${side.snapshots}; the changed fields are unknown`,
    );
  return read.snapshot;
}

/**
 * The look-alikes among a server's live names: its tools' (all but the
 * removed) and, when its live surface contracts are known, its prompts' and
 * templates' (namedParts).
 */
function liveLookAlikes(
  finding: ServerFinding,
  surface: SurfaceContracts | undefined,
): (name: string) => NamedPart[] {
  const tools = finding.tools.filter((t) => t.status !== "removed").map((t) => t.name);
  return lookAlikes(namedParts(tools, surface));
}
