import { CONTRACT_FIELDS } from "./contract.js";
import type { SurfaceErrorCode, ToolsErrorCode } from "../errors.js";
import type { RuleId } from "../findings/rules.js";
import type { SidePinMember } from "./digest-types.js";

/**
 * The kinds of listed primitive a server serves, tools included, described
 * as data (spec 2, SPEC.md section 10): the one table that reads, projects,
 * digests, compares and reports every kind from its entry here, never from a
 * copy per kind. The guard extends it with its wire data (guard-kinds.ts).
 */

/** How a surface kind is named in the lock (`surface.<id>`) and in a surface dump. */
export type KindId = "prompts" | "resource_templates" | "resources";

/** What a finding or report part is about: a kind's items, or the server's instructions. */
export type PartId = "tools" | "instructions" | KindId;

/** One kind of listed primitive, whatever it is. */
export interface Kind {
  /** The lock member: `tools` of a server entry, or `surface.<id>`. */
  id: "tools" | KindId;
  /** Where the lock keeps the kind's items: in the server entry (tools, spec 3) or under `surface`. */
  placement: "server" | "surface";
  /** The list method, paged with `cursor` / `nextCursor`. */
  method: "tools/list" | "prompts/list" | "resources/templates/list" | "resources/list";
  /** The member of the list result holding the array of items. */
  member: "tools" | "prompts" | "resourceTemplates" | "resources";
  /** The member that names an item: unique in a list, the key of the lock's entry. */
  key: "name" | "uriTemplate" | "uri";
  /** The server capability that advertises the list. */
  capability: "tools" | "prompts" | "resources";
  /** Every contract member, in canonical (UTF-16) order. */
  fields: readonly string[];
  /** One item, in words ("prompt"). */
  noun: string;
  /** Items, in words ("resource templates"), as a report's summary names them. */
  plural: string;
  /** Read only when asked (`--resources`): the list changes with data, not with code. */
  optIn: boolean;
  /**
   * Whether its items' `name`s are compared, by skeleton, with the other
   * such names of the server, across kinds, for look-alikes (lookAlikes):
   * what a model calls or a user picks (tools, prompts, templates); not
   * resources, whose names are data.
   */
  lookAlike: boolean;
  /**
   * Members outside the contract that decide what the model sees, each
   * pinned beside the item's digest and never in any digest (SPEC.md 13):
   * compare, lock, verify and the guard read them from here.
   */
  sidePins: readonly SidePin[];
  /** Error codes: an item that is not an object, a key that is not a valid string, a key twice. */
  codes: {
    notObject: SurfaceErrorCode | ToolsErrorCode;
    keyInvalid: SurfaceErrorCode | ToolsErrorCode;
    duplicate: SurfaceErrorCode | ToolsErrorCode;
  };
}

/**
 * One side pin (SPEC.md 13): a served member outside the contract, recorded
 * in the item's lock entry as the digest of its value, present exactly when
 * the served item has it. It enters no digest, so no tool digest moves.
 */
export interface SidePin {
  /** The member of the item's lock entry that holds the digest. */
  member: SidePinMember;
  /** Where the value is in the served item: every step but the last must be an object. */
  path: readonly string[];
  /** The path as reports name the changed field (`_meta.ui.visibility`). */
  field: string;
  /** The finding a moved pin gives (docs/findings.md). */
  rule: RuleId;
}

/**
 * The MCP Apps extension's `_meta.ui.visibility`: `["app"]` keeps a tool from
 * the model, absent or holding "model" shows it. A flip changes what the model
 * can call, so it is pinned although the model never reads it as text.
 */
export const VISIBILITY: SidePin = {
  member: "visibility",
  path: ["_meta", "ui", "visibility"],
  field: "_meta.ui.visibility",
  rule: "tool-visibility-changed",
};

/** tools/list (spec 2): the contract fields of the seed spec, pinned in the server entry. */
export const TOOLS: Kind = {
  id: "tools",
  placement: "server",
  method: "tools/list",
  member: "tools",
  key: "name",
  capability: "tools",
  fields: CONTRACT_FIELDS,
  noun: "tool",
  plural: "tools",
  optIn: false,
  lookAlike: true,
  sidePins: [VISIBILITY],
  codes: {
    notObject: "TOOL_NOT_OBJECT",
    keyInvalid: "TOOL_NAME_INVALID",
    duplicate: "TOOLS_DUPLICATE_NAME",
  },
};

/** A kind the lock keeps under `surface` (SPEC.md 10). */
export interface SurfaceKind extends Kind {
  id: KindId;
  placement: "surface";
  method: "prompts/list" | "resources/templates/list" | "resources/list";
  member: "prompts" | "resourceTemplates" | "resources";
  capability: "prompts" | "resources";
  /** Members of the contract that are always present: `null` when absent or null. */
  always: readonly string[];
  /** Members of the contract present only when served and not null. */
  optional: readonly string[];
  codes: { notObject: SurfaceErrorCode; keyInvalid: SurfaceErrorCode; duplicate: SurfaceErrorCode };
}

function kind(k: Omit<SurfaceKind, "fields" | "placement" | "sidePins">): SurfaceKind {
  return { ...k, placement: "surface", fields: [...k.always, ...k.optional].sort(), sidePins: [] };
}

/** prompts/list: what a client turns into commands. */
export const PROMPTS = kind({
  id: "prompts",
  method: "prompts/list",
  member: "prompts",
  key: "name",
  capability: "prompts",
  always: ["name", "description", "arguments"],
  optional: [],
  noun: "prompt",
  plural: "prompts",
  optIn: false,
  lookAlike: true,
  codes: {
    notObject: "PROMPT_NOT_OBJECT",
    keyInvalid: "PROMPT_NAME_INVALID",
    duplicate: "PROMPTS_DUPLICATE_NAME",
  },
});

/** resources/templates/list: what a model may fill in and read. */
export const RESOURCE_TEMPLATES = kind({
  id: "resource_templates",
  method: "resources/templates/list",
  member: "resourceTemplates",
  key: "uriTemplate",
  capability: "resources",
  always: ["uriTemplate", "name", "description"],
  optional: ["mimeType", "annotations"],
  noun: "resource template",
  plural: "resource templates",
  optIn: false,
  lookAlike: true,
  codes: {
    notObject: "TEMPLATE_NOT_OBJECT",
    keyInvalid: "TEMPLATE_URI_INVALID",
    duplicate: "TEMPLATES_DUPLICATE_URI",
  },
});

/** resources/list: pinned only when asked, since most servers list data that changes. */
export const RESOURCES = kind({
  id: "resources",
  method: "resources/list",
  member: "resources",
  key: "uri",
  capability: "resources",
  always: ["uri", "name", "description"],
  optional: ["mimeType", "annotations"],
  noun: "resource",
  plural: "resources",
  optIn: true,
  lookAlike: false,
  codes: {
    notObject: "RESOURCE_NOT_OBJECT",
    keyInvalid: "RESOURCE_URI_INVALID",
    duplicate: "RESOURCES_DUPLICATE_URI",
  },
});

/** Every kind, in the order the lock, the reports and a read take them. */
export const KINDS: readonly Kind[] = [TOOLS, PROMPTS, RESOURCE_TEMPLATES, RESOURCES];

/** The kinds the lock keeps under `surface`, in order. */
export const SURFACE_KINDS: readonly SurfaceKind[] = KINDS.filter(
  (k): k is SurfaceKind => k.placement === "surface",
);

/** The surface kind with this lock id. */
export function kindById(id: KindId): SurfaceKind {
  return SURFACE_KINDS.find((k) => k.id === id)!;
}

/** Every part a report names, in order: tools, the instructions, then each surface kind. */
export const PARTS: readonly PartId[] = [
  "tools",
  "instructions",
  ...SURFACE_KINDS.map((k) => k.id),
];

/** A part in words: one item (`noun`) or several (`plural`); the instructions are both. */
export function partWords(part: PartId): { noun: string; plural: string } {
  if (part === "instructions") return { noun: "instructions", plural: "instructions" };
  return part === "tools" ? TOOLS : kindById(part);
}
