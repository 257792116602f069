import * as crypto from "node:crypto";
import { CanonicalWriter } from "../json/canonical-bytes.js";
import { CONTRACT_FIELDS, contractOf, type Contract, type ContractField } from "./contract.js";
import { ContractpinError } from "../errors.js";
import { getMember, isJsonObject, setMember, type JsonValue } from "../json/json-value.js";
import type { Digest, ServerDigests, ToolDigests } from "./digest-types.js";
import { TOOLS } from "./kinds.js";
import { sidePinValue } from "./side-pins.js";

export type { Digest, ServerDigests, ToolDigests } from "./digest-types.js";

// crypto.hash (Node >= 20.12) skips the Hash object; createHash is the fallback.
const sha256Hex: (data: string | Uint8Array) => string =
  typeof crypto.hash === "function"
    ? (data) => crypto.hash("sha256", data, "hex")
    : (data) => crypto.createHash("sha256").update(data).digest("hex");

/**
 * `sha256:` + hex SHA-256 of the UTF-8 bytes of `canonical`. A string must be
 * well-formed UTF-16 (canonicalize guarantees it), so its UTF-8 is exact.
 */
export function digestOfCanonical(canonical: string | Uint8Array): Digest {
  return `sha256:${sha256Hex(canonical)}`;
}

// One writer, reused: digesting is synchronous, so no two digests interleave.
const writer = new CanonicalWriter();

/** The digest of any JSON value: SHA-256 of its canonical bytes. */
export function digestValue(value: unknown): Digest {
  writer.reset();
  writer.value(value);
  return digestOfCanonical(writer.bytes());
}

/**
 * The rule every reader of the contract snapshots uses (spec 9, SPEC.md
 * 10.9): a stored value stands for the pinned one only when its digest, as
 * stored, is `pinned`. A value that cannot be canonicalized (nested too
 * deep) is not the pinned one, never an error.
 */
export function digestIs(value: unknown, pinned: Digest | null): boolean {
  if (pinned === null) return false;
  try {
    return digestValue(value) === pinned;
  } catch {
    return false;
  }
}

/**
 * A snapshot entry that is the pinned contract stored under `key`: an object
 * whose `keyMember` (a tool's `name`, a template's `uriTemplate`...) is `key`,
 * and whose digest as stored is `pinned` ({@link digestIs}).
 */
export function isPinnedEntry(
  entry: unknown,
  keyMember: string,
  key: string,
  pinned: Digest | null,
): boolean {
  return isJsonObject(entry) && getMember(entry, keyMember) === key && digestIs(entry, pinned);
}

/**
 * Which tools need their field digests: called with each tool's name and
 * digest once the digest is known. Field digests only say which part of a
 * tool moved, so verify asks for them only where the digest differs from the
 * pin (spec 4.2: advisory), and an unchanged tool costs one hash, not one per
 * field. Default: every tool.
 */
export type WantFields = (name: string, digest: Digest) => boolean;

const EVERY_TOOL: WantFields = () => true;
const NO_TOOL: WantFields = () => false;

/**
 * Tool digest and field digests of a contract from one canonicalization: the
 * contract's canonical bytes are written once, and each field's digest is the
 * hash of its own span within them (spec 4.1, 4.2). `fields` is empty when
 * `wantFields` declines them.
 */
export function digestContract(
  contract: Contract,
  wantFields: WantFields = EVERY_TOOL,
): ToolDigests {
  writer.reset();
  writer.raw("{");
  const spans: [ContractField, number, number][] = [];
  for (const field of CONTRACT_FIELDS) {
    if (!Object.hasOwn(contract, field)) continue;
    // The field names are plain ASCII, so their quoted form is their canonical form.
    writer.raw(`${spans.length > 0 ? "," : ""}"${field}":`);
    const start = writer.pos;
    writer.value(contract[field], 1); // inside the contract object
    spans.push([field, start, writer.pos]);
  }
  writer.raw("}");
  const digest = digestOfCanonical(writer.bytes());
  const fields: ToolDigests["fields"] = {};
  if (wantFields(contract.name, digest)) {
    for (const [field, start, end] of spans)
      fields[field] = digestOfCanonical(writer.bytes(start, end));
  }
  return { digest, fields };
}

/** The tool digest of a tool definition (spec 4.1). */
export function toolDigest(tool: JsonValue): Digest {
  return digestContract(contractOf(tool), NO_TOOL).digest;
}

/** The field digests of a tool definition (spec 4.2). */
export function fieldDigests(tool: JsonValue): ToolDigests["fields"] {
  return digestContract(contractOf(tool)).fields;
}

/**
 * The server digest (spec 4.3): the digest of the object mapping every tool
 * name to its tool digest.
 */
export function serverDigest(
  toolDigests: Readonly<Record<string, string>> | ReadonlyMap<string, string>,
): Digest {
  const entries = toolDigests instanceof Map ? [...toolDigests] : Object.entries(toolDigests);
  const object: Record<string, string> = {};
  for (const [name, digest] of entries) setMember(object, name, digest);
  return digestValue(object);
}

/**
 * Digests a server's tool list (spec 2-4): each tool's contract, field and
 * tool digests, and the server digest, shaped as the lock's per-server object.
 *
 * @param tools the `tools` of every tools/list page, in order.
 * @throws ContractpinError TOOLS_DUPLICATE_NAME, or the errors of contractOf / canonicalize.
 */
export function digestTools(tools: readonly JsonValue[]): ServerDigests {
  return digestToolContracts(tools).digests;
}

/**
 * {@link digestTools}, keeping each tool's contract too (in the order served):
 * what pinning writes to the contract snapshots, and what verify shows a
 * drift with, from the one projection and canonicalization. With
 * `wantFields`, only the tools it names get field digests (see {@link WantFields}).
 */
export function digestToolContracts(
  tools: readonly JsonValue[],
  wantFields: WantFields = EVERY_TOOL,
): {
  digests: ServerDigests;
  contracts: Contract[];
} {
  const { byName, contracts } = digestEachTool(tools, wantFields);
  const toolsObject: Record<string, ToolDigests> = {};
  const names: Record<string, string> = {};
  for (const [name, digests] of byName) {
    setMember(toolsObject, name, digests);
    setMember(names, name, digests.digest);
  }
  return {
    digests: { tool_count: byName.size, digest: serverDigest(names), tools: toolsObject },
    contracts,
  };
}

/**
 * Each tool's contract and digests (its side pins included, SPEC.md 13), by
 * name and in the order served, without the server digest ({@link digestToolContracts} adds it): what the guard
 * compares with the lock, tool by tool, on every tools/list page.
 *
 * @throws ContractpinError TOOLS_DUPLICATE_NAME, or the errors of contractOf / canonicalize.
 */
export function digestEachTool(
  tools: readonly JsonValue[],
  wantFields: WantFields = EVERY_TOOL,
): { byName: Map<string, ToolDigests>; contracts: Contract[] } {
  const byName = new Map<string, ToolDigests>();
  const contracts: Contract[] = [];
  tools.forEach((tool, index) => {
    const contract = contractOf(tool, `tool ${index}`);
    if (byName.has(contract.name)) {
      throw new ContractpinError(
        "TOOLS_DUPLICATE_NAME",
        `two tools are named ${JSON.stringify(contract.name)} (tool ${index} repeats an earlier one)`,
      );
    }
    const digests = digestContract(contract, wantFields);
    // The side pins (SPEC.md 13): beside the tool digest, never in it.
    for (const pin of TOOLS.sidePins) {
      const value = sidePinValue(pin, tool);
      if (value !== undefined) digests[pin.member] = digestValue(value);
    }
    byName.set(contract.name, digests);
    contracts.push(contract);
  });
  return { byName, contracts };
}

/**
 * The rule of fieldDigestMismatches (src/core/lock/lock-check.ts) for any contract with per-field
 * digests (a tool's, or a surface item's): of `fields`, those the lock
 * `recorded` a digest for that is not the one `digests` computes from the
 * pinned contract (a field it lacks has none). `digests` runs only when
 * something is recorded. Pure.
 */
export function mismatchedFields<F extends string>(
  recorded: Partial<Record<F, Digest>>,
  fields: readonly F[],
  digests: () => Partial<Record<F, Digest>>,
): F[] {
  if (Object.keys(recorded).length === 0) return [];
  const computed = digests();
  return fields.filter((f) => recorded[f] !== undefined && recorded[f] !== computed[f]);
}
