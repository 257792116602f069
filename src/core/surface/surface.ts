import { digestValue, type Digest, type ServerDigests } from "../contract/digest.js";
import { setMember, type JsonValue } from "../json/json-value.js";
import { digestItems, type ItemContract } from "./items.js";
import { SURFACE_KINDS, type KindId } from "../contract/kinds.js";
import type { SurfaceDigests } from "../contract/digest-types.js";

export type { SurfaceDigests } from "../contract/digest-types.js";

/**
 * What a server serves besides its tools, as read (SPEC.md 10.1): its
 * `instructions` value (undefined when absent) and, per kind, every item of
 * every page in order; `null` for a kind whose capability the server does
 * not advertise; a kind not read (resources without `--resources`) absent.
 */
export interface ServedSurface {
  instructions: JsonValue | undefined;
  lists: Partial<Record<KindId, JsonValue[] | null>>;
}

/** Each kind's contracts, in the order served: what snapshots hold and reports show. */
export type SurfaceContracts = Partial<Record<KindId, ItemContract[]>> & {
  instructions?: JsonValue;
};

/** The instructions digest: of the value as served, null when absent or null. */
export function instructionsDigest(value: JsonValue | undefined): Digest | null {
  return value === undefined || value === null ? null : digestValue(value);
}

/**
 * Digests a served surface: the instructions, then each kind read.
 *
 * @throws ContractpinError the kinds' codes (a duplicate key, an item that is not an object, ...).
 */
export function digestSurface(served: ServedSurface): {
  digests: SurfaceDigests;
  contracts: SurfaceContracts;
} {
  const digests: SurfaceDigests = {
    instructions: instructionsDigest(served.instructions),
    prompts: null,
    resource_templates: null,
  };
  const contracts: SurfaceContracts = {};
  if (served.instructions !== undefined && served.instructions !== null)
    contracts.instructions = served.instructions;
  for (const kind of SURFACE_KINDS) {
    if (!Object.hasOwn(served.lists, kind.id)) {
      if (!kind.optIn) throw new Error(`the surface read has no ${kind.method} list`);
      continue;
    }
    const items = served.lists[kind.id];
    if (items === null || items === undefined) {
      digests[kind.id] = null;
      continue;
    }
    const { digests: list, contracts: itemContracts } = digestItems(kind, items);
    digests[kind.id] = list;
    contracts[kind.id] = itemContracts;
  }
  return { digests, contracts };
}

/**
 * The server digest of a server that pins its surface (SPEC.md 10.5): the
 * digest of `{"instructions": ..., "prompts": ..., "resource_templates": ...,
 * ["resources": ...,] "tools": <the v1 server digest>}`, each kind by its list
 * digest or null. Any change of the pinned surface changes it.
 */
export function surfaceServerDigest(toolsDigest: Digest, surface: SurfaceDigests): Digest {
  const object: Record<string, JsonValue> = {
    instructions: surface.instructions,
    prompts: surface.prompts?.digest ?? null,
    resource_templates: surface.resource_templates?.digest ?? null,
    tools: toolsDigest,
  };
  if (surface.resources !== undefined)
    setMember(object, "resources", surface.resources?.digest ?? null);
  return digestValue(object);
}

/**
 * A server's lock entry from its tool digests and, when its surface is
 * pinned, its surface digests: `digest` becomes the surface server digest.
 * Without a surface, the tool digests unchanged (a version 1 pin).
 */
export function withSurfaceDigests(
  tools: ServerDigests,
  surface: SurfaceDigests | undefined,
): ServerDigests {
  if (surface === undefined) return tools;
  return { ...tools, digest: surfaceServerDigest(tools.digest, surface), surface };
}

/**
 * Which parts of a surface differ between reads of one server (the first
 * read against each later one), in words: `instructions`, `prompt "x"`.
 * Empty when every read pinned the same surface.
 */
export function unstableSurface(reads: readonly (SurfaceDigests | undefined)[]): string[] {
  const first = reads[0];
  const parts = new Set<string>();
  for (const read of reads.slice(1)) {
    if (first === undefined || read === undefined) continue;
    if (first.instructions !== read.instructions) parts.add("instructions");
    for (const kind of SURFACE_KINDS) {
      const a = first[kind.id];
      const b = read[kind.id];
      if ((a?.digest ?? null) === (b?.digest ?? null)) continue;
      const keys = new Set([...Object.keys(a?.items ?? {}), ...Object.keys(b?.items ?? {})]);
      let named = false;
      for (const key of keys) {
        if (a?.items[key]?.digest !== b?.items[key]?.digest) {
          parts.add(`${kind.noun} ${JSON.stringify(key)}`);
          named = true;
        }
      }
      if (!named) parts.add(`the ${kind.method} capability`);
    }
  }
  return [...parts];
}
