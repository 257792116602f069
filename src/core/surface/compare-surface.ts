import { itemFails, type CompareOptions, type ServerFinding, type ToolStatus } from "../compare.js";
import type { Digest } from "../digest.js";
import type { JsonValue } from "../json-value.js";
import type { ItemDigests, ListDigests } from "./items.js";
import { SURFACE_KINDS, type KindId, type PartId } from "../kinds.js";
import type { SurfaceDigests } from "./surface.js";

/** What a surface finding is about: the instructions, or one kind's list or item. */
export type SurfacePart = Exclude<PartId, "tools">;

/**
 * One finding about the surface (SPEC.md 10.6), classified as a tool's is.
 * `key` names the item (a prompt's name, a template's uriTemplate, a
 * resource's uri); absent for the instructions, and for a whole list whose
 * capability appeared (added) or disappeared (removed).
 */
export interface SurfaceFinding {
  part: SurfacePart;
  key?: string;
  status: ToolStatus;
  /** The digest in the lock (absent when added; for a list, its list digest). */
  pinned?: Digest;
  /** The live digest (absent when removed). */
  live?: Digest;
  /** For a drifted item: the members whose field digests differ. */
  fields?: string[];
}

/**
 * Classifies a server's surface against the pin: the instructions, then each
 * pinned kind (resources only when pinned), each list's items by key, sorted
 * by key. Unchanged items are included, as unchanged tools are.
 */
export function compareSurface(pinned: SurfaceDigests, live: SurfaceDigests): SurfaceFinding[] {
  const out: SurfaceFinding[] = [];
  const p = pinned.instructions;
  const l = live.instructions;
  if (p === null && l !== null) out.push({ part: "instructions", status: "added", live: l });
  else if (p !== null && l === null)
    out.push({ part: "instructions", status: "removed", pinned: p });
  else if (p !== null && l !== null)
    out.push({
      part: "instructions",
      status: p === l ? "unchanged" : "drifted",
      pinned: p,
      live: l,
    });
  for (const kind of SURFACE_KINDS) {
    if (pinned[kind.id] === undefined) continue; // resources not pinned
    const before = pinned[kind.id] ?? null;
    const after = live[kind.id] ?? null;
    if ((before === null) !== (after === null)) {
      // The capability appeared or disappeared: the list itself, then its items.
      const list = (before ?? after) as ListDigests;
      out.push(
        before === null
          ? { part: kind.id, status: "added", live: list.digest }
          : { part: kind.id, status: "removed", pinned: list.digest },
      );
    }
    compareItems(kind.id, kind.fields, before?.items ?? {}, after?.items ?? {}, out);
  }
  return out;
}

function compareItems(
  part: KindId,
  fieldNames: readonly string[],
  before: Record<string, ItemDigests>,
  after: Record<string, ItemDigests>,
  out: SurfaceFinding[],
): void {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  for (const key of [...keys].sort()) {
    const p = Object.hasOwn(before, key) ? before[key] : undefined;
    const l = Object.hasOwn(after, key) ? after[key] : undefined;
    if (p === undefined) out.push({ part, key, status: "added", live: l!.digest });
    else if (l === undefined) out.push({ part, key, status: "removed", pinned: p.digest });
    else if (p.digest === l.digest)
      out.push({ part, key, status: "unchanged", pinned: p.digest, live: l.digest });
    else {
      const fields =
        Object.keys(p.fields).length === 0
          ? []
          : fieldNames.filter((f) => p.fields[f] !== l.fields[f]);
      out.push({ part, key, status: "drifted", pinned: p.digest, live: l.digest, fields });
    }
  }
}

/**
 * A server's finding with its surface findings folded in: a drifted or
 * removed part fails it, an added one unless `allowNew` (spec 6, as for tools).
 */
export function withSurface(
  finding: ServerFinding,
  surface: SurfaceFinding[],
  options: CompareOptions = {},
): ServerFinding {
  const fails = surface.some((f) => itemFails(f.status, options.allowNew === true));
  return {
    ...finding,
    status: finding.status === "ok" && fails ? "drift" : finding.status,
    surface,
  };
}

/** The two contracts of a surface part that moved, where known (snapshot, live read). */
export interface SurfaceExplained {
  before?: JsonValue;
  after?: JsonValue;
}

/** The key of a surface finding in a map of explanations: its part and item key. */
export function surfaceKey(f: Pick<SurfaceFinding, "part" | "key">): string {
  return f.key === undefined ? f.part : `${f.part}\u0000${f.key}`;
}
