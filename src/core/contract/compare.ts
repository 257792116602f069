import { appendPointer, pointerTokens } from "../json/json-pointer.js";
import { CONTRACT_FIELDS, type ContractField } from "./contract.js";
import type { Digest, ServerDigests, ToolDigests } from "./digest.js";
import type { SidePinDigests } from "./digest-types.js";
import type { JsonValue } from "../json/json-value.js";
import { PARTS, SURFACE_KINDS, TOOLS, type PartId, type SidePin } from "./kinds.js";
import { movedSidePins } from "./side-pins.js";
import type { ListDigests } from "../surface/items.js";
import type { SurfaceDigests } from "../surface/surface.js";

/** What happened to one tool between the lock and the live server (spec 6). */
export type ToolStatus = "unchanged" | "drifted" | "added" | "removed";

/** One tool's finding. */
export interface ToolFinding {
  name: string;
  status: ToolStatus;
  /** Digest in the lock (absent for an added tool). */
  pinned?: Digest;
  /** Digest on the live server (absent for a removed tool). */
  live?: Digest;
  /**
   * For a drifted tool: the contract fields whose digests differ, or that one
   * side has and the other lacks. Empty when the lock holds no field digests
   * or the contract did not move.
   */
  fields?: ContractField[];
  /**
   * For a drifted tool: the side pins (SPEC.md 13) whose digests differ or
   * that one side records and the other does not, by field
   * (`_meta.ui.visibility`). Unlike `fields`, the lock's own pins: confirmed.
   */
  sidePins?: string[];
}

/** A server's verdict: matches, drifted (a tool moved, was added or removed), or could not be read. */
export type ServerStatus = "ok" | "drift" | "unreachable";

/** One server's result: findings as data, rendered elsewhere. */
export interface ServerFinding {
  name: string;
  status: ServerStatus;
  /** For an unreachable server: why, in one line. */
  error?: string;
  /** Extra lines that explain an unreachable server (a child's last stderr lines). */
  detail?: string[];
  pinnedDigest: Digest;
  liveDigest?: Digest;
  /** Every tool of the lock and of the live server, sorted by name. */
  tools: ToolFinding[];
  /**
   * For a server that pins its surface (SPEC.md 10.6): the instructions and
   * every pinned list's items, each classified as a tool is.
   */
  surface?: SurfaceFinding[];
}

/**
 * Whether an item in this state fails its server on its own (spec 6): a
 * drifted or removed item always, an added one unless additions are allowed.
 * The same for every kind.
 */
export function itemFails(status: ToolStatus, allowNew: boolean): boolean {
  return status === "drifted" || status === "removed" || (status === "added" && !allowNew);
}

/** Options of a comparison. */
export interface CompareOptions {
  /** An added tool is reported but does not fail the server (default false: spec 6). */
  allowNew?: boolean;
}

/**
 * Classifies every tool by name (spec 6): in the lock only, removed; live
 * only, added; in both with different digests, or a side pin that moved
 * (`_meta.ui.visibility`, SPEC.md 13), drifted, with the fields and side pins
 * that moved; else unchanged. Added tools fail the server unless `allowNew`.
 */
export function compareServer(
  name: string,
  pinned: ServerDigests,
  live: ServerDigests,
  options: CompareOptions = {},
): ServerFinding {
  const tools: ToolFinding[] = compareKeyed(
    pinned.tools,
    live.tools,
    TOOLS.fields,
    TOOLS.sidePins,
  ).map(({ key, fields, ...rest }) => ({
    name: key,
    ...rest,
    ...(fields === undefined ? {} : { fields: fields as ContractField[] }),
  }));
  const fails = tools.some((t) => itemFails(t.status, options.allowNew === true));
  return {
    name,
    status: fails ? "drift" : "ok",
    pinnedDigest: pinned.digest,
    liveDigest: live.digest,
    tools,
  };
}

/** One keyed item compared, whatever its kind: the key, and how it moved. */
export interface KeyedFinding {
  key: string;
  status: ToolStatus;
  pinned?: Digest;
  live?: Digest;
  /** For a drifted item: the members whose field digests differ (empty when the pin holds none). */
  fields?: string[];
  /** For a drifted item: the side pins that moved, by field (absent when none did). */
  sidePins?: string[];
}

/** One item's digests as compared: its digest, its field digests, its side pins. */
type KeyedDigests = { digest: Digest; fields: Readonly<Record<string, Digest>> } & SidePinDigests;

/**
 * Classifies the items of one kind by key (spec 6), the same for every kind:
 * in `before` only, removed; in `after` only, added; in both with different
 * digests, drifted, with the `fields` whose field digests differ, or that
 * one side has and the other lacks (none when `before` holds no field
 * digests); in both with one digest but a side pin of `sidePins` that moved
 * (SPEC.md 13), drifted too, with no field and the `sidePins` that moved;
 * else unchanged. Sorted by key.
 */
export function compareKeyed(
  before: Readonly<Record<string, KeyedDigests>>,
  after: Readonly<Record<string, KeyedDigests>>,
  fields: readonly string[],
  sidePins: readonly SidePin[] = [],
): KeyedFinding[] {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  const out: KeyedFinding[] = [];
  for (const key of [...keys].sort()) {
    const p = Object.hasOwn(before, key) ? before[key] : undefined;
    const l = Object.hasOwn(after, key) ? after[key] : undefined;
    if (p === undefined) out.push({ key, status: "added", live: l!.digest });
    else if (l === undefined) out.push({ key, status: "removed", pinned: p.digest });
    else {
      const pins = movedSidePins(sidePins, p, l).map((pin) => pin.field);
      if (p.digest === l.digest && pins.length === 0)
        out.push({ key, status: "unchanged", pinned: p.digest, live: l.digest });
      else {
        // One digest, one contract: no field moved (the live side may hold no field digests).
        const moved =
          p.digest === l.digest || Object.keys(p.fields).length === 0
            ? []
            : fields.filter((f) => p.fields[f] !== l.fields[f]);
        const drifted: KeyedFinding = {
          key,
          status: "drifted",
          pinned: p.digest,
          live: l.digest,
          fields: moved,
        };
        if (pins.length > 0) drifted.sidePins = pins;
        out.push(drifted);
      }
    }
  }
  return out;
}

/** A server that could not be read: never "ok" (spec 6). */
export function unreachableServer(
  name: string,
  pinned: ServerDigests,
  error: string,
  detail?: string[],
): ServerFinding {
  const finding: ServerFinding = {
    name,
    status: "unreachable",
    error,
    pinnedDigest: pinned.digest,
    tools: [],
  };
  if (detail !== undefined && detail.length > 0) finding.detail = detail;
  return finding;
}

/**
 * The contract fields whose digests differ between two tools' digests, or that
 * one has and the other lacks; empty when `pinned` holds no field digests.
 */
export function changedFields(pinned: ToolDigests, live: ToolDigests): ContractField[] {
  if (Object.keys(pinned.fields).length === 0) return [];
  return CONTRACT_FIELDS.filter((f) => pinned.fields[f] !== live.fields[f]);
}

/**
 * One item of a compared server, whatever its kind: a tool (part `tools`,
 * keyed by name), the instructions (no key), a surface list (no key: its
 * capability appeared or went) or one of its items.
 */
export interface ComparedItem {
  part: PartId;
  key?: string;
  status: ToolStatus;
}

/** Every item of a compared server, tools first, then its surface in the lock's order. */
export function comparedItems(server: ServerFinding): ComparedItem[] {
  const items: ComparedItem[] = server.tools.map((t) => ({
    part: "tools",
    key: t.name,
    status: t.status,
  }));
  for (const f of server.surface ?? []) items.push(f);
  return items;
}

/** Whether any item of the server moved (drifted, added, removed). */
export function anyMoved(server: ServerFinding): boolean {
  return comparedItems(server).some((i) => i.status !== "unchanged");
}

/**
 * Items by part and status, over every server: tools, the instructions and
 * each kind's items (a list whose capability appeared or went is counted by
 * its items, not twice). For the summary line; the JSON summary keeps its
 * `tools` counts (summarize).
 */
export function countItems(
  findings: readonly ServerFinding[],
): Record<PartId, Record<ToolStatus, number>> {
  const counts = Object.fromEntries(
    PARTS.map((p) => [p, { unchanged: 0, drifted: 0, added: 0, removed: 0 }]),
  ) as Record<PartId, Record<ToolStatus, number>>;
  for (const server of findings)
    for (const item of comparedItems(server)) {
      if (item.key === undefined && item.part !== "instructions") continue;
      counts[item.part][item.status]++;
    }
  return counts;
}

/** Counts for a summary line. */
export interface Summary {
  servers: Record<ServerStatus, number>;
  tools: Record<ToolStatus, number>;
}

/** Tallies servers and tools by status. */
export function summarize(findings: readonly ServerFinding[]): Summary {
  const summary: Summary = {
    servers: { ok: 0, drift: 0, unreachable: 0 },
    tools: { unchanged: 0, drifted: 0, added: 0, removed: 0 },
  };
  for (const server of findings) {
    summary.servers[server.status]++;
    for (const tool of server.tools) summary.tools[tool.status]++;
  }
  return summary;
}

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
    for (const { key, ...rest } of compareKeyed(
      before?.items ?? {},
      after?.items ?? {},
      kind.fields,
    ))
      out.push({ part: kind.id, key, ...rest });
  }
  return out;
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

/** Where a surface part's findings point: `/instructions`, `/prompts`, `/prompts/<name>`. */
export function partPointer(f: Pick<SurfaceFinding, "part" | "key">): string {
  if (f.part === "instructions") return "/instructions";
  return f.key === undefined ? `/${f.part}` : appendPointer(`/${f.part}`, f.key);
}

/**
 * The surface part a finding's pointer is at or inside (the inverse of
 * {@link partPointer}) and the rest of the pointer: `/prompts/leak/description`
 * is the prompt `leak`, at `/description`; `/instructions` is the
 * instructions, at `/instructions` (the member of their part). Undefined for
 * a pointer into no surface part (`/command/0`, a tool's `/description`).
 */
export function partAt(
  pointer: string,
): { part: Exclude<PartId, "tools">; key?: string; rest: string } | undefined {
  const [first, key, ...more] = pointerTokens(pointer);
  if (first === "instructions") return { part: "instructions", rest: pointer };
  const kind = SURFACE_KINDS.find((k) => k.id === first);
  if (kind === undefined) return undefined;
  if (key === undefined) return { part: kind.id, rest: "" };
  return { part: kind.id, key, rest: more.reduce<string>((p, t) => appendPointer(p, t), "") };
}

/**
 * Whether a server finding is about a surface part that was added (its
 * pointer at or under the part's): under --allow-new it does not fail, as an
 * added tool's findings do not.
 */
export function aboutAddedPart(
  surface: readonly SurfaceFinding[] | undefined,
  pointer: string | undefined,
): boolean {
  if (surface === undefined || pointer === undefined) return false;
  return surface.some((f) => {
    if (f.status !== "added") return false;
    const base = partPointer(f);
    return pointer === base || pointer.startsWith(`${base}/`);
  });
}
