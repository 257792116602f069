/**
 * The shapes of the digests the lock records (spec 5, SPEC.md 10.4), in a
 * leaf of their own: the digest code and the surface code both use them.
 */
import type { ContractField } from "./contract.js";

/** A digest as written in the lock: `sha256:` and 64 lowercase hex digits (spec 4.1). */
export type Digest = `sha256:${string}`;

/** The lock members of the side pins (SPEC.md 13; the kind table's `sidePins`). */
export type SidePinMember = "visibility";

/** The side pins an item's lock entry records: the digest of each served value, present only when served. */
export type SidePinDigests = Partial<Record<SidePinMember, Digest>>;

/** The digests of one tool, as recorded in the lock (spec 5). */
export interface ToolDigests extends SidePinDigests {
  /** Digest of the whole contract (spec 4.1). */
  digest: Digest;
  /** Digest of each field present in the contract (spec 4.2), in canonical key order. */
  fields: Partial<Record<ContractField, Digest>>;
}

/** The digests of one server's tool list: the per-server object of the lock (spec 5). */
export interface ServerDigests {
  tool_count: number;
  /** Server digest (spec 4.3). */
  digest: Digest;
  /** Keyed by tool name; `__proto__` is an ordinary own key. */
  tools: Record<string, ToolDigests>;
  /**
   * Instructions, prompts, resource templates (and resources when asked),
   * for a server that pins more than its tools (SPEC.md 10); its `digest` is
   * then the surface server digest.
   */
  surface?: SurfaceDigests;
}

/** The digests of one item, as the lock records them (the shape of a tool's). */
export interface ItemDigests {
  digest: Digest;
  /** Digest of each contract member present, by member. */
  fields: Record<string, Digest>;
}

/** The lock's object for one kind of one server (SPEC.md 10.4). */
export interface ListDigests {
  count: number;
  /** The digest of `{key: item digest, ...}`, as a v1 server digest is of its tools. */
  digest: Digest;
  /** Keyed by the item's key (a prompt's name, a template's uriTemplate, a resource's uri). */
  items: Record<string, ItemDigests>;
}

/** The lock's `surface` member of a server (SPEC.md 10.4). */
export interface SurfaceDigests {
  /** The digest of the instructions value; null when the server sends none. */
  instructions: Digest | null;
  /** null: the server does not advertise the kind's capability. */
  prompts: ListDigests | null;
  resource_templates: ListDigests | null;
  /** Present only when resources are pinned (`--resources`). */
  resources?: ListDigests | null;
}
