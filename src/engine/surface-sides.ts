// Where the explanation of a server's moved surface parts finds their two
// contracts (explainServer's PartSides): for verify, the snapshots beside the
// lock and the live read; for diff, each side's own (a dump's contracts, or
// a lock's snapshots). Reads the snapshots only when a part moved.
import type { ServerFinding } from "../core/contract/compare.js";
import { lookAlikes, namedParts, type NamedPart } from "../core/findings/name-skeleton.js";
import type { SurfaceContracts } from "../core/surface/surface.js";
import { partOf } from "../core/surface/findings.js";
import { readSnapshot, snapshotPath, type Snapshot } from "../io/snapshot-file.js";
import { pinnedPart } from "../io/snapshot-surface.js";
import type { PartSides } from "./explain-server.js";
import type { VerifiedServer } from "./verify.js";

/**
 * For verify: per server whose surface moved, where its parts' contracts
 * are: the pinned one from the snapshots beside the lock when its entry
 * matches the lock's digest (read only when some part drifted), the live one
 * from the read. Never changes a verdict.
 */
export async function surfaceSides(
  lockFile: string,
  verified: readonly VerifiedServer[],
  warn: (message: string) => void,
): Promise<Map<string, PartSides>> {
  const out = new Map<string, PartSides>();
  const moved = verified.filter((v) => movedSurface(v.finding));
  if (moved.length === 0) return out;
  let snapshot: Snapshot | undefined;
  if (moved.some((v) => v.finding.surface!.some((f) => f.status === "drifted"))) {
    const read = await readSnapshot(snapshotPath(lockFile));
    if (read.warning !== undefined) warn(read.warning);
    snapshot = read.snapshot;
  }
  for (const { finding, surfaceContracts } of moved) {
    const entry = snapshot?.surfaces?.[finding.name];
    const known = Object.hasOwn(snapshot?.surfaces ?? {}, finding.name);
    out.set(finding.name, {
      before: (f) => (known ? pinnedPart(entry, f) : undefined),
      after: (f) => partOf(surfaceContracts, f),
      alike: liveLookAlikes(finding, surfaceContracts),
    });
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
 * For `diff`: per server whose surface moved between two sides, where its
 * parts' contracts are on each side (a dump's, or a lock's snapshots when
 * they match). Never changes a verdict.
 */
export async function surfaceDiffSides(
  findings: readonly ServerFinding[],
  old: SurfaceSide,
  next: SurfaceSide,
  warn: (message: string) => void,
): Promise<Map<string, PartSides>> {
  const out = new Map<string, PartSides>();
  const moved = findings.filter(movedSurface);
  if (moved.length === 0) return out;
  const oldSnap = old.kind === "lock" ? await snapshotOf(old, warn) : undefined;
  const newSnap = next.kind === "lock" ? await snapshotOf(next, warn) : undefined;
  for (const finding of moved) {
    const name = finding.name;
    out.set(name, {
      before: (f) =>
        old.kind === "dump"
          ? partOf(old.contractsOf(name), f)
          : pinnedPart(oldSnap?.surfaces?.[name], f),
      after: (f) =>
        next.kind === "dump"
          ? partOf(next.contractsOf(name), f)
          : pinnedPart(newSnap?.surfaces?.[name], {
              ...f,
              ...(f.live === undefined ? {} : { pinned: f.live }),
            }),
      alike: liveLookAlikes(finding, next.kind === "dump" ? next.contractsOf(name) : undefined),
    });
  }
  return out;
}

function movedSurface(finding: ServerFinding): boolean {
  return (finding.surface ?? []).some((f) => f.status !== "unchanged");
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
