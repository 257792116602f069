import { ContractpinError } from "./errors.js";
import { getMember, isJsonObject, type JsonObject, type JsonValue } from "./json-value.js";

/**
 * The tools of a tools/list dump, in order, across all its pages. Accepted
 * forms: a tools/list result (`{"tools": [...]}`), a JSON-RPC response whose
 * `result` is one, or a non-empty array of either, one per page in order.
 *
 * A dump must be complete: every page but the last carries a `nextCursor`,
 * and the last carries none, so a truncated dump is rejected rather than
 * pinned short.
 *
 * @throws ContractpinError DUMP_INVALID naming what is wrong and where.
 */
export function toolsFromDump(dump: JsonValue): JsonValue[] {
  if (!Array.isArray(dump)) {
    const page = pageOf(dump, "$");
    if (page.nextCursor !== undefined) {
      invalid(
        "$",
        "is one page of a paginated list (it has a nextCursor); dump every page as a JSON array of pages",
      );
    }
    return page.tools;
  }
  if (dump.length === 0) invalid("$", "is an empty array; expected tools/list pages");
  const tools: JsonValue[] = [];
  dump.forEach((item, index) => {
    const where = `$[${index}]`;
    const page = pageOf(item, where);
    const last = index === dump.length - 1;
    if (!last && page.nextCursor === undefined) {
      invalid(where, `has no nextCursor, but ${dump.length - index - 1} more page(s) follow it`);
    }
    if (last && page.nextCursor !== undefined) {
      invalid(where, "is the last page but has a nextCursor: the dump is incomplete");
    }
    for (const tool of page.tools) tools.push(tool);
  });
  return tools;
}

/** One tools/list page: its tools, and its cursor unless absent or null. */
export interface ToolsPage {
  tools: JsonValue[];
  nextCursor: string | undefined;
}

/**
 * Reads one tools/list result (or a JSON-RPC response carrying one).
 * `nextCursor` must be a string when present and not null.
 */
export function pageOf(value: JsonValue, where: string, what = "a tools/list dump"): ToolsPage {
  let result = value;
  if (isJsonObject(value) && Object.hasOwn(value, "jsonrpc")) {
    const error = getMember(value, "error");
    if (error !== undefined) {
      const message = isJsonObject(error) ? getMember(error, "message") : undefined;
      invalid(
        where,
        `is a JSON-RPC error response${typeof message === "string" ? `: ${message}` : ""}`,
        what,
      );
    }
    const inner = getMember(value, "result");
    if (inner === undefined) invalid(where, "is a JSON-RPC message without a result", what);
    result = inner;
    where = `${where}.result`;
  }
  if (!isJsonObject(result)) {
    invalid(where, "is not a tools/list result (expected an object with a tools array)", what);
  }
  const tools = getMember(result as JsonObject, "tools");
  if (!Array.isArray(tools)) {
    invalid(
      where,
      tools === undefined ? "has no tools array" : "has a tools member that is not an array",
      what,
    );
  }
  const cursor = getMember(result as JsonObject, "nextCursor");
  if (cursor !== undefined && cursor !== null && typeof cursor !== "string") {
    invalid(`${where}.nextCursor`, "is not a string", what);
  }
  return { tools, nextCursor: typeof cursor === "string" ? cursor : undefined };
}

function invalid(where: string, problem: string, what = "a tools/list dump"): never {
  throw new ContractpinError("DUMP_INVALID", `not ${what}: ${where} ${problem}`);
}
