import type { SurfaceErrorCode } from "../errors.js";

/**
 * The kinds of primitive a server serves besides tools, described as data
 * (SPEC.md section 10): one pipeline reads, projects, digests, compares and
 * renders every kind from its entry here, never from a copy per kind.
 */

/** How a kind is named in the lock (`surface.<id>`) and in a surface dump. */
export type KindId = "prompts" | "resource_templates" | "resources";

/** One kind of listed primitive. */
export interface SurfaceKind {
  /** The lock member under `surface`. */
  id: KindId;
  /** The list method, paged with `cursor` / `nextCursor` as tools/list is. */
  method: "prompts/list" | "resources/templates/list" | "resources/list";
  /** The member of the list result holding the array of items. */
  member: "prompts" | "resourceTemplates" | "resources";
  /** The member that names an item: unique in a list, the key of the lock's entry. */
  key: "name" | "uriTemplate" | "uri";
  /** The server capability that advertises the list. */
  capability: "prompts" | "resources";
  /** Members of the contract that are always present: `null` when absent or null. */
  always: readonly string[];
  /** Members of the contract present only when served and not null. */
  optional: readonly string[];
  /** Every contract member, in canonical (UTF-16) order. */
  fields: readonly string[];
  /** One item, in words ("prompt"). */
  noun: string;
  /** Read only when asked (`--resources`): the list changes with data, not with code. */
  optIn: boolean;
  /** Error codes: an item that is not an object, a key that is not a valid string, a key twice. */
  codes: { notObject: SurfaceErrorCode; keyInvalid: SurfaceErrorCode; duplicate: SurfaceErrorCode };
}

function kind(k: Omit<SurfaceKind, "fields">): SurfaceKind {
  return { ...k, fields: [...k.always, ...k.optional].sort() };
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
  optIn: false,
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
  optIn: false,
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
  optIn: true,
  codes: {
    notObject: "RESOURCE_NOT_OBJECT",
    keyInvalid: "RESOURCE_URI_INVALID",
    duplicate: "RESOURCES_DUPLICATE_URI",
  },
});

/** Every kind, in the order the lock, the reports and a read take them. */
export const SURFACE_KINDS: readonly SurfaceKind[] = [PROMPTS, RESOURCE_TEMPLATES, RESOURCES];

/** The kind with this lock id. */
export function kindById(id: KindId): SurfaceKind {
  return SURFACE_KINDS.find((k) => k.id === id)!;
}
