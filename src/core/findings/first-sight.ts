import type { Contract } from "../contract/contract.js";
import type { JsonValue } from "../json/json-value.js";
import { SURFACE_KINDS } from "../contract/kinds.js";
import type { SurfacePart } from "../contract/compare.js";
import { surfaceFindings } from "../surface/findings.js";
import type { SurfaceContracts } from "../surface/surface.js";
import { classifyServer } from "./classify.js";
import type { Finding } from "./finding.js";
import { lookAlikes, namedParts } from "./name-skeleton.js";

/** What a first sight reviews of one server: its tools' contracts and, when pinned, its surface's. */
export interface FirstSight {
  contracts: readonly Contract[];
  surfaceContracts?: SurfaceContracts;
}

/**
 * What the rules find in a server's contracts on first sight, over every
 * kind: every finding they would give if the server had been empty before,
 * with the same ids and severities, except the addition itself (`tool-added`,
 * `surface-added`: everything of a first pin is new). Tools first, grouped by
 * tool and sorted by name; then the instructions and each kind's items in
 * the lock's order. Pure.
 */
export function firstSightFindings(server: string, read: FirstSight): Finding[] {
  const surface = read.surfaceContracts;
  // Names are compared across kinds: a prompt named like a tool is a look-alike too.
  const named = namedParts(
    read.contracts.map((c) => c.name),
    surface,
  );
  const otherParts = named.filter((p) => p.kind !== "tools");
  const tools = classifyServer([], read.contracts, { server, otherParts });
  const found = tools.filter((f) => f.rule !== "tool-added");
  if (surface === undefined) return found;
  const alike = lookAlikes(named);
  const parts: { part: SurfacePart; key?: string; after: JsonValue }[] = [];
  if (surface.instructions !== undefined)
    parts.push({ part: "instructions", after: surface.instructions });
  for (const kind of SURFACE_KINDS)
    for (const item of surface[kind.id] ?? [])
      parts.push({ part: kind.id, key: item[kind.key] as string, after: item });
  for (const { after, ...part } of parts) {
    const added = surfaceFindings(server, { ...part, status: "added" }, { after }, alike);
    for (const f of added) if (f.rule !== "surface-added") found.push(f);
  }
  return found;
}

/**
 * The findings of `findings` that `shown` does not hold already (the same
 * tool, rule and pointer): a re-pin shows what it accepted, with its
 * findings, before its review of what it pins, which need not say them
 * twice. Pure.
 */
export function notShown(findings: readonly Finding[], shown: Iterable<Finding>): Finding[] {
  const key = (f: Finding) => JSON.stringify([f.tool ?? null, f.rule, f.pointer ?? null]);
  const seen = new Set([...shown].map(key));
  return findings.filter((f) => !seen.has(key(f)));
}

/** Every finding a re-pin's change report shows for one server. */
export function shownFindings(
  explained:
    | { tools: ReadonlyMap<string, { findings: readonly Finding[] }>; findings: readonly Finding[] }
    | undefined,
): Finding[] {
  if (explained === undefined) return [];
  return [...explained.findings, ...[...explained.tools.values()].flatMap((t) => t.findings)];
}
