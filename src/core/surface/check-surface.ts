import { digestIs, isPinnedEntry, mismatchedFields, type Digest } from "../contract/digest.js";
import { getMember, isJsonObject, type JsonObject, type JsonValue } from "../json/json-value.js";
import type { Lock } from "../lock/lock.js";
import { digestItem, itemContractOf, type ItemDigests } from "./items.js";
import { SURFACE_KINDS, type SurfaceKind } from "../contract/kinds.js";
import type { SurfaceDigests } from "./surface.js";

/**
 * `contractpin check` on the snapshots' `surfaces` member (SPEC.md 10.9):
 * the rule section 9 sets for tools' entries, applied to every pinned part of
 * a server that pins its surface. Pure; credentials are scanned by the caller.
 */

/**
 * A part of a server's surface: `instructions`, a kind (`prompts`, when `key`
 * is absent) or one item of it. Names as found (unsanitised).
 */
export interface SurfacePart {
  server: string;
  part: string;
  key?: string;
}

/** One disagreement between the lock's surface and the `surfaces` entries. */
export type SurfaceCheckProblem =
  /** A server that pins some part of its surface has no entry. */
  | { kind: "surface-server-missing"; server: string }
  /** An entry for a server the lock does not pin, or pins tools-only. */
  | { kind: "surface-server-unpinned"; server: string }
  /** A server's entry, or a kind's, is not an object. */
  | ({ kind: "surface-invalid" } & SurfacePart)
  /** A pinned part without an entry. */
  | ({ kind: "surface-missing" } & SurfacePart)
  /** An entry for a part (or item) the lock does not pin. */
  | ({ kind: "surface-unpinned" } & SurfacePart)
  /** An entry whose digest is not the lock's, or whose key member is not its key. */
  | ({ kind: "surface-stale" } & SurfacePart)
  /** The entry is the pinned item, but the lock's digest of one of its fields does not follow from it. */
  | ({ kind: "lock-surface-field-digest"; field: string } & SurfacePart & { key: string });

/** Compares the lock's surfaces with the `surfaces` member (an object) of the snapshots. */
export function checkSurfaces(lock: Lock, surfaces: JsonObject): SurfaceCheckProblem[] {
  const problems: SurfaceCheckProblem[] = [];
  for (const [server, pinned] of Object.entries(lock.servers)) {
    if (pinned.surface === undefined) continue;
    const entry = getMember(surfaces, server);
    if (entry === undefined) {
      if (pinsAnything(pinned.surface)) problems.push({ kind: "surface-server-missing", server });
    } else if (!isJsonObject(entry)) {
      problems.push({ kind: "surface-invalid", server, part: "" });
    } else {
      compareServer(server, pinned.surface, entry, problems);
    }
  }
  for (const server of Object.keys(surfaces)) {
    const pinned = Object.hasOwn(lock.servers, server) ? lock.servers[server] : undefined;
    if (pinned?.surface === undefined) problems.push({ kind: "surface-server-unpinned", server });
  }
  return problems;
}

/** Whether the lock pins any value for the server's surface (else an entry may be left out). */
function pinsAnything(surface: SurfaceDigests): boolean {
  return (
    surface.instructions !== null ||
    SURFACE_KINDS.some((kind) => Object.keys(surface[kind.id]?.items ?? {}).length > 0)
  );
}

function compareServer(
  server: string,
  pinned: SurfaceDigests,
  entry: JsonObject,
  problems: SurfaceCheckProblem[],
): void {
  const instructions = getMember(entry, "instructions");
  if (pinned.instructions === null) {
    if (instructions !== undefined)
      problems.push({ kind: "surface-unpinned", server, part: "instructions" });
  } else if (instructions === undefined) {
    problems.push({ kind: "surface-missing", server, part: "instructions" });
  } else if (!digestIs(instructions, pinned.instructions)) {
    problems.push({ kind: "surface-stale", server, part: "instructions" });
  }
  for (const kind of SURFACE_KINDS) {
    const list = pinned[kind.id];
    const items = getMember(entry, kind.id);
    if (list === undefined || list === null) {
      if (items !== undefined) problems.push({ kind: "surface-unpinned", server, part: kind.id });
    } else if (items === undefined) {
      for (const key of Object.keys(list.items))
        problems.push({ kind: "surface-missing", server, part: kind.id, key });
    } else if (!isJsonObject(items)) {
      problems.push({ kind: "surface-invalid", server, part: kind.id });
    } else {
      compareItems(server, kind, list.items, items, problems);
    }
  }
  const parts = new Set(["instructions", ...SURFACE_KINDS.map((k) => k.id)]);
  for (const part of Object.keys(entry)) {
    if (!parts.has(part)) problems.push({ kind: "surface-unpinned", server, part });
  }
}

function compareItems(
  server: string,
  kind: SurfaceKind,
  pinned: Record<string, ItemDigests>,
  items: JsonObject,
  problems: SurfaceCheckProblem[],
): void {
  const part = kind.id;
  for (const [key, digests] of Object.entries(pinned)) {
    const item = getMember(items, key);
    if (item === undefined) {
      problems.push({ kind: "surface-missing", server, part, key });
    } else if (!isPinnedEntry(item, kind.key, key, digests.digest)) {
      problems.push({ kind: "surface-stale", server, part, key });
    } else {
      // The entry is the pinned item itself, so each field digest the lock records must follow from it.
      const fields = mismatchedFields(digests.fields, kind.fields, () =>
        itemFieldDigests(kind, item),
      );
      for (const field of fields)
        problems.push({ kind: "lock-surface-field-digest", server, part, key, field });
    }
  }
  for (const key of Object.keys(items)) {
    if (!Object.hasOwn(pinned, key)) problems.push({ kind: "surface-unpinned", server, part, key });
  }
}

/** An item's field digests; none when it cannot be an item (a key over the length limit). */
function itemFieldDigests(kind: SurfaceKind, item: JsonValue): Record<string, Digest> {
  try {
    return digestItem(kind, itemContractOf(kind, item, kind.noun)).fields;
  } catch {
    return {};
  }
}
