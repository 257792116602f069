import {
  compareServer,
  compareSurface,
  withSurface,
  type CompareOptions,
  type ServerFinding,
} from "./compare.js";
import type { Contract } from "./contract.js";
import { SURFACE_KINDS } from "./kinds.js";
import { digestToolContracts, type ServerDigests } from "./digest.js";
import type { JsonValue } from "../json/json-value.js";
import {
  digestSurface,
  withSurfaceDigests,
  type ServedSurface,
  type SurfaceContracts,
} from "../surface/surface.js";

/** What a server serves, exactly as read: its tools, and its surface when it was read. */
export interface Served {
  /** The `tools` of every tools/list page, in order. */
  tools: readonly JsonValue[];
  /** Instructions and lists (SPEC.md 10.1); absent for a tools-only read. */
  surface?: ServedSurface;
}

/** A served server compared with its pin. */
export interface ServedComparison {
  finding: ServerFinding;
  /** The served contracts of the drifted and added tools (to show the change). */
  changed: Contract[];
  /** The served surface's contracts, for a server that pins its surface and where anything moved. */
  surfaceContracts?: SurfaceContracts;
}

/**
 * Compares what a server serves with its pin (spec 6, SPEC.md 10.6): every
 * tool, and for a server that pins its surface, the instructions and every
 * pinned list, each item classified the same way. A tools-only read behind a
 * surface pin has every pinned part removed. Field digests are computed only
 * for the tools that moved. Pure: `verify` and the library's `verifyServed`
 * both call it.
 *
 * @throws ContractpinError what digesting the served tools or surface throws (a duplicate name, ...).
 */
export function compareServed(
  name: string,
  pinned: ServerDigests,
  served: Served,
  options: CompareOptions = {},
): ServedComparison {
  // Field digests only say which part of a tool moved: an unchanged tool needs none.
  const live = digestToolContracts(
    served.tools,
    (tool, digest) => !Object.hasOwn(pinned.tools, tool) || pinned.tools[tool]!.digest !== digest,
  );
  let finding = compareServer(name, pinned, live.digests, options);
  let surfaceContracts: SurfaceContracts | undefined;
  if (pinned.surface !== undefined) {
    // Every kind a surface read takes is then not served (opt-in ones are not read).
    const read = served.surface ?? {
      instructions: undefined,
      lists: Object.fromEntries(SURFACE_KINDS.filter((k) => !k.optIn).map((k) => [k.id, null])),
    };
    const surface = digestSurface(read);
    finding = withSurface(finding, compareSurface(pinned.surface, surface.digests), options);
    finding.liveDigest = withSurfaceDigests(live.digests, surface.digests).digest;
    surfaceContracts = surface.contracts;
  }
  const surfaceMoved = (finding.surface ?? []).some((f) => f.status !== "unchanged");
  if (finding.tools.every((t) => t.status === "unchanged") && !surfaceMoved)
    return { finding, changed: [] };
  const moved = new Set(
    finding.tools.filter((t) => t.status === "drifted" || t.status === "added").map((t) => t.name),
  );
  const changed = live.contracts.filter((c) => moved.has(c.name));
  // The served surface goes with any change: an added tool's name is compared with its prompts'.
  return surfaceContracts !== undefined
    ? { finding, changed, surfaceContracts }
    : { finding, changed };
}
