import { ContractpinError } from "../errors.js";
import { getMember, isJsonObject, type JsonObject, type JsonValue } from "../json-value.js";
import { itemsFromPages } from "../tools-list.js";
import { SURFACE_KINDS, type SurfaceKind } from "../kinds.js";
import type { ServedSurface } from "./surface.js";

/** The member that marks a surface dump, and its only version (SPEC.md 10.3). */
export const SURFACE_DUMP_MEMBER = "contractpin-dump";
export const SURFACE_DUMP_VERSION = "2";

/** A server's whole surface as read: its tools and everything else. */
export interface SurfaceRead {
  tools: JsonValue[];
  surface: ServedSurface;
}

/** True when a parsed dump is a surface dump (an object with `contractpin-dump`), not a tools/list dump. */
export function isSurfaceDump(value: JsonValue): value is JsonObject {
  return isJsonObject(value) && Object.hasOwn(value, SURFACE_DUMP_MEMBER);
}

/**
 * Reads a surface dump (SPEC.md 10.3): the initialize (or server/discover)
 * result, and the pages of every list the server advertises, each whole.
 *
 * @throws ContractpinError DUMP_INVALID naming what is wrong and where.
 */
export function surfaceFromDump(dump: JsonValue): SurfaceRead {
  if (!isSurfaceDump(dump)) invalid("$", "is not a surface dump");
  if (getMember(dump, SURFACE_DUMP_MEMBER) !== SURFACE_DUMP_VERSION) {
    invalid(`$.${SURFACE_DUMP_MEMBER}`, `must be "${SURFACE_DUMP_VERSION}"`);
  }
  const allowed = [
    SURFACE_DUMP_MEMBER,
    "initialize",
    "tools/list",
    ...SURFACE_KINDS.map((k) => k.method),
  ];
  for (const key of Object.keys(dump)) {
    if (!allowed.includes(key))
      invalid(`$`, `has a member ${JSON.stringify(key)} a surface dump does not have`);
  }
  const init = resultOf(getMember(dump, "initialize"), "$.initialize");
  const capabilities = capabilitiesOf(init);
  const tools = getMember(dump, "tools/list");
  if (tools === undefined) invalid("$", "has no tools/list pages");
  const surface: ServedSurface = { instructions: getMember(init, "instructions"), lists: {} };
  for (const kind of SURFACE_KINDS) {
    const pages = getMember(dump, kind.method);
    const advertised = advertises(capabilities, kind);
    if (pages !== undefined) {
      if (!advertised) {
        invalid(
          `$["${kind.method}"]`,
          `is there, but the server does not advertise ${kind.capability}`,
        );
      }
      surface.lists[kind.id] = itemsFromPages(
        pages,
        kind.member,
        `$["${kind.method}"]`,
        kind.method,
      );
    } else if (!kind.optIn) {
      if (advertised) {
        invalid("$", `has no ${kind.method} pages, but the server advertises ${kind.capability}`);
      }
      surface.lists[kind.id] = null;
    }
  }
  return { tools: itemsFromPages(tools, "tools", '$["tools/list"]', "tools/list"), surface };
}

/** A server's capabilities object from its initialize or server/discover result ({} when absent or null). */
export function capabilitiesOf(result: JsonObject): JsonObject {
  const capabilities = getMember(result, "capabilities");
  if (capabilities === undefined || capabilities === null) return {};
  if (!isJsonObject(capabilities)) invalid("initialize.capabilities", "is not an object");
  return capabilities;
}

/** Whether the capabilities advertise a kind's list: its capability present and not null. */
export function advertises(capabilities: JsonObject, kind: SurfaceKind): boolean {
  const value = getMember(capabilities, kind.capability);
  return value !== undefined && value !== null;
}

function resultOf(value: JsonValue | undefined, where: string): JsonObject {
  let result = value;
  if (isJsonObject(value) && Object.hasOwn(value, "jsonrpc")) {
    if (getMember(value, "error") !== undefined) invalid(where, "is a JSON-RPC error response");
    result = getMember(value, "result");
    where = `${where}.result`;
  }
  if (!isJsonObject(result)) invalid(where, "is not an initialize result (an object)");
  return result;
}

function invalid(where: string, problem: string): never {
  throw new ContractpinError("DUMP_INVALID", `not a surface dump: ${where} ${problem}`);
}
