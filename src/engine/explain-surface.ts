import {
  type ServerFinding,
  surfaceKey,
  type SurfaceExplained,
  type SurfaceFinding,
} from "../core/contract/compare.js";
import type { JsonValue } from "../core/json/json-value.js";
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
    const known = Object.hasOwn(snapshot?.surfaces ?? {}, finding.name);
    out.set(
      finding.name,
      explainParts(finding, {
        before: (f) => (known ? pinnedPart(entry, f) : undefined),
        after: (f) => partOf(surfaceContracts, f),
        alike: liveLookAlikes(finding, surfaceContracts),
      }),
    );
  }
  return out;
}

/** Where an explanation finds a moved part's two contracts. */
interface PartSides {
  /** The pinned contract (not asked for an added part). */
  before: (f: SurfaceFinding) => JsonValue | undefined;
  /** The new contract (not asked for a removed part). */
  after: (f: SurfaceFinding) => JsonValue | undefined;
  /** The look-alikes among the server's live names. */
  alike: (name: string) => NamedPart[];
}

/**
 * A server's moved surface parts, each with the contracts `sides` knows and
 * their findings: the one loop of verify's and diff's explanations.
 */
function explainParts(
  finding: ServerFinding,
  sides: PartSides,
): { parts: Map<string, SurfaceExplained>; findings: Finding[] } {
  const parts = new Map<string, SurfaceExplained>();
  const findings: Finding[] = [];
  for (const f of finding.surface ?? []) {
    if (f.status === "unchanged") continue;
    const explained: SurfaceExplained = {};
    const before = f.status === "added" ? undefined : sides.before(f);
    const after = f.status === "removed" ? undefined : sides.after(f);
    if (before !== undefined) explained.before = before;
    if (after !== undefined) explained.after = after;
    parts.set(surfaceKey(f), explained);
    findings.push(...surfaceFindings(finding.name, f, explained, sides.alike));
  }
  return { parts, findings };
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
    const name = finding.name;
    out.set(
      name,
      explainParts(finding, {
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
      }),
    );
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
