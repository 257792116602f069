import { ContractpinError } from "../errors.js";
import { getMember, isJsonObject, type JsonObject, type JsonValue } from "../json/json-value.js";
import { isMethodNotFound, itemsFromPages } from "../contract/tools-list.js";
import { SURFACE_KINDS, type SurfaceKind } from "../contract/kinds.js";
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
 * Resources as the dump says (its `resources/list` member pins them, `null`
 * when not advertised), unless `resources` decides: true asks for them as a
 * live `--resources` read does (null when not advertised; a dump without
 * them of a server that advertises them is refused), false leaves them out.
 *
 * @throws ContractpinError DUMP_INVALID naming what is wrong and where.
 */
export function surfaceFromDump(dump: JsonValue, resources?: boolean): SurfaceRead {
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
  const surface: ServedSurface = { instructions: getMember(init, "instructions"), lists: {} };
  for (const kind of SURFACE_KINDS) {
    const pages = getMember(dump, kind.method);
    const advertised = advertises(capabilities, kind);
    if (pages === null && kind.optIn && !advertised) {
      // Asked (--resources) of a server that does not advertise them: pinned as null.
      surface.lists[kind.id] = null;
    } else if (pages !== undefined) {
      if (!advertised) {
        invalid(
          `$["${kind.method}"]`,
          `is there, but the server does not advertise ${kind.capability}`,
        );
      }
      surface.lists[kind.id] = listFromPages(pages, kind.member, kind.method);
    } else if (!kind.optIn || resources === true) {
      if (advertised) {
        invalid(
          "$",
          `has no ${kind.method} pages, but the server advertises ${kind.capability}` +
            (kind.optIn ? " and they are asked for (--resources): dump it with --resources" : ""),
        );
      }
      surface.lists[kind.id] = null;
    }
  }
  // Not asked for: left out, as a live read without --resources leaves them.
  if (resources === false) delete surface.lists.resources;
  // tools/list is asked only of a server that advertises tools (SPEC.md 10.3).
  const tools = getMember(dump, "tools/list");
  if (tools === undefined && advertises(capabilities, { capability: "tools" }))
    invalid("$", "has no tools/list pages, but the server advertises tools");
  return {
    tools: tools === undefined ? [] : (listFromPages(tools, "tools", "tools/list") ?? []),
    surface,
  };
}

/**
 * A list's pages in a surface dump: their items, or null when the only page
 * is the server's -32601 Method not found answer (SPEC.md 10.1).
 */
function listFromPages(pages: JsonValue, member: string, method: string): JsonValue[] | null {
  if (Array.isArray(pages) && pages.length === 1 && isMethodNotFound(pages[0])) return null;
  return itemsFromPages(pages, member, `$["${method}"]`, method);
}

/**
 * A server's capabilities object from its initialize or server/discover
 * result ({} when absent or null).
 *
 * @throws ContractpinError `code` (DUMP_INVALID by default) when it is any other non-object.
 */
export function capabilitiesOf(
  result: JsonObject,
  code: "DUMP_INVALID" | "SERVER_UNREADABLE" = "DUMP_INVALID",
): JsonObject {
  const capabilities = getMember(result, "capabilities");
  if (capabilities === undefined || capabilities === null) return {};
  if (!isJsonObject(capabilities)) {
    if (code === "DUMP_INVALID") invalid("initialize.capabilities", "is not an object");
    throw new ContractpinError(
      code,
      "the server's initialize result has capabilities that are not an object",
    );
  }
  return capabilities;
}

/**
 * Whether the capabilities advertise a list: its capability (`tools`,
 * `prompts`, `resources`) present and not null. Any other value, `false`,
 * `0` and `""` included, advertises it (SPEC.md 10.1).
 */
export function advertises(
  capabilities: JsonObject,
  kind: Pick<SurfaceKind, "capability"> | { capability: "tools" },
): boolean {
  const value = getMember(capabilities, kind.capability);
  return value !== undefined && value !== null;
}

function resultOf(value: JsonValue | undefined, where: string): JsonObject {
  let result = value;
  // A response is told from a bare result by `jsonrpc`; one without it that
  // carries `result` or `error` is neither (SPEC.md 10.3).
  if (
    isJsonObject(value) &&
    !Object.hasOwn(value, "jsonrpc") &&
    (Object.hasOwn(value, "result") || Object.hasOwn(value, "error"))
  ) {
    invalid(
      where,
      'has a "result" or "error" member but no "jsonrpc": it is neither a result nor a response',
    );
  }
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
