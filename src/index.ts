/**
 * contractpin's library API: the pure core (strict JSON, canonical JSON,
 * contracts and digests). Everything here is deterministic and does no IO.
 */
export { parseJson, MAX_DEPTH, type ParseOptions } from "./core/strict-json.js";
export { canonicalize, CANONICALIZATION } from "./core/canonical-json.js";
export { contractOf, CONTRACT_FIELDS, type Contract, type ContractField } from "./core/contract.js";
export {
  toolDigest,
  fieldDigests,
  serverDigest,
  digestTools,
  digestContract,
  digestValue,
  type Digest,
  type ToolDigests,
  type ServerDigests,
} from "./core/digest.js";
export { toolsFromDump, pageOf, type ToolsPage } from "./core/tools-list.js";
export {
  checkTools,
  type CheckOptions,
  type CheckResult,
  type WithheldTool,
  type WithheldReason,
} from "./guard/policy.js";
// The surface besides tools (SPEC.md 10): kinds as data, their contracts and digests.
export {
  SURFACE_KINDS,
  PROMPTS,
  RESOURCE_TEMPLATES,
  RESOURCES,
  kindById,
  type SurfaceKind,
  type KindId,
} from "./core/kinds.js";
export {
  itemContractOf,
  digestItem,
  digestItems,
  type ItemContract,
  type ItemDigests,
  type ListDigests,
} from "./core/surface/items.js";
export {
  digestSurface,
  instructionsDigest,
  surfaceServerDigest,
  withSurfaceDigests,
  type ServedSurface,
  type SurfaceDigests,
  type SurfaceContracts,
} from "./core/surface/surface.js";
export { surfaceFromDump, isSurfaceDump, type SurfaceRead } from "./core/surface/dump.js";
export { compareSurface, type SurfaceFinding, type SurfacePart } from "./core/compare.js";
export { isPinnedItem, isPinnedInstructions } from "./core/surface/pinned.js";
export { prettyJson } from "./core/pretty-json.js";
export { ContractpinError, isContractpinError, type ErrorCode } from "./core/errors.js";
export type { JsonValue, JsonObject } from "./core/json-value.js";
