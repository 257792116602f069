// `guard --on-drift=graded` (issue 36): a drifted item whose change brings
// no finding at or above the threshold is passed on, as `verify --fail-on`
// lets such a drift pass. The change is classified by the engine's own code
// (explainTools for a tool, surfaceFindings for the surface), against the
// pinned contract from the snapshots beside the lock, used only when its
// digest is the lock's. What cannot be explained that way (no snapshot, an
// entry that does not match), what was added, and instructions that gain a
// directive stay withheld.
import type { ServerFinding } from "../../core/contract/compare.js";
import { contractOf, type Contract } from "../../core/contract/contract.js";
import type { Digest } from "../../core/contract/digest.js";
import { atOrAbove } from "../../core/findings/rules.js";
import type { Finding } from "../../core/findings/finding.js";
import type { Severity } from "../../core/findings/rules.js";
import type { JsonValue } from "../../core/json/json-value.js";
import type { PinnedServer } from "../../core/lock/lock.js";
import type { SurfaceFinding } from "../../core/contract/compare.js";
import { surfaceFindings } from "../../core/surface/findings.js";
import { itemContractOf } from "../../core/surface/items.js";
import { kindById, type KindId } from "../../core/contract/kinds.js";
import { explainTools } from "../../engine/explain-server.js";
import { readSnapshotEntries } from "../../io/snapshot-entries.js";
import { readSnapshot, snapshotPath } from "../../io/snapshot-file.js";
import { pinnedPart } from "../../io/snapshot-surface.js";

/** What graded mode needs to know: where the snapshots are, and the threshold. */
export interface Grading {
  lockPath: string;
  server: string;
  threshold: Severity;
}

/** One drifted item as the guard saw it: its key, both digests, and the item as served. */
export interface DriftedItem {
  name: string;
  pinned: Digest;
  live: Digest;
  item: JsonValue;
}

/** The findings of a drift below the threshold: the item may pass. */
export type Passed = Map<string, Finding[]>;

/** Whether a drift's findings let it pass: known, at least one, none at or above the threshold. */
function below(findings: readonly Finding[], threshold: Severity): boolean {
  return findings.length > 0 && !findings.some((f) => atOrAbove(f, threshold));
}

/**
 * The drifted tools that may pass, with their findings: those whose pinned
 * contract the snapshots hold (matching the lock's digest) and whose change,
 * classified as verify classifies it, is below the threshold.
 */
export async function gradeTools(
  grading: Grading,
  pinned: PinnedServer,
  drifted: readonly DriftedItem[],
): Promise<Passed> {
  const passed: Passed = new Map();
  if (drifted.length === 0) return passed;
  const read = await readSnapshotEntries(
    snapshotPath(grading.lockPath),
    drifted.map((d) => ({ server: grading.server, tool: d.name, pinned: d.pinned })),
  );
  const before: Contract[] = [];
  for (const entry of read.entries) if (entry.contract !== undefined) before.push(entry.contract);
  const after = drifted.map((d) => contractOf(d.item));
  const finding: ServerFinding = {
    name: grading.server,
    status: "drift",
    pinnedDigest: pinned.digest as Digest,
    tools: drifted.map((d) => ({
      name: d.name,
      status: "drifted" as const,
      pinned: d.pinned,
      live: d.live,
    })),
  };
  const explained = explainTools(finding, before, after, Object.keys(pinned.tools));
  for (const d of drifted) {
    const why = explained.tools.get(d.name);
    if (why?.before === undefined) continue;
    // A rename the classifier pairs is an added tool: never passed.
    if (why.renamedFrom !== undefined) continue;
    if (below(why.findings, grading.threshold)) passed.set(d.name, why.findings);
  }
  return passed;
}

/**
 * The drifted surface items (prompts, templates, resources) or instructions
 * that may pass, with their findings: as {@link gradeTools}, with the
 * surface's classification (SPEC.md 10.6). Instructions that gain a directive
 * never pass, whatever the threshold.
 */
export async function gradeSurface(
  grading: Grading,
  part: "instructions" | KindId,
  drifted: readonly DriftedItem[],
): Promise<Passed> {
  const passed: Passed = new Map();
  if (drifted.length === 0) return passed;
  const read = await readSnapshot(snapshotPath(grading.lockPath));
  const surfaces = read.snapshot?.surfaces;
  if (surfaces === undefined || !Object.hasOwn(surfaces, grading.server)) return passed;
  const entry = surfaces[grading.server];
  for (const d of drifted) {
    const f: SurfaceFinding = {
      part,
      ...(part === "instructions" ? {} : { key: d.name }),
      status: "drifted",
      pinned: d.pinned,
      live: d.live,
    };
    const before = pinnedPart(entry, f);
    if (before === undefined) continue;
    const after =
      part === "instructions"
        ? d.item
        : (itemContractOf(kindById(part), d.item, `${part} ${d.name}`) as unknown as JsonValue);
    const findings = surfaceFindings(grading.server, f, { before, after });
    if (findings.some((x) => x.rule === "instructions-directive")) continue;
    if (below(findings, grading.threshold)) passed.set(d.name, findings);
  }
  return passed;
}

/** How a passed drift's findings read in its event: "description-changed (low)", one each. */
export function findingsText(findings: readonly Finding[]): string[] {
  return findings.map((f) => `${f.rule} (${f.severity})`);
}
