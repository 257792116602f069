import { ContractpinError } from "../errors.js";
import { getMember, isJsonObject, type JsonObject, type JsonValue } from "../json/json-value.js";

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
  return itemsFromPages(dump, "tools", "$", "tools/list");
}

/**
 * Every item of a list's pages, in order (a dump's form 3, for any list
 * method): a non-empty array whose pages but the last carry a `nextCursor`.
 *
 * @param member the result member holding the items (`tools`, `prompts`, ...).
 * @param method the list method, for messages (`tools/list`).
 */
export function itemsFromPages(
  pages: JsonValue,
  member: string,
  where: string,
  method: string,
): JsonValue[] {
  const what = `a ${method} dump`;
  if (!Array.isArray(pages) || pages.length === 0)
    invalid(where, `is not a non-empty array of ${method} pages`, what);
  const items: JsonValue[] = [];
  const cursors = new Set<string>();
  pages.forEach((item, index) => {
    const at = `${where}[${index}]`;
    const page = itemsPage(item, member, at, what);
    // The rule of a live read: a cursor seen before means the pages loop.
    if (page.nextCursor !== undefined) {
      if (cursors.has(page.nextCursor))
        invalid(`${at}.nextCursor`, "repeats the cursor of an earlier page", what);
      cursors.add(page.nextCursor);
    }
    const last = index === pages.length - 1;
    if (!last && page.nextCursor === undefined) {
      invalid(
        at,
        `has no nextCursor, but ${pages.length - index - 1} more page(s) follow it`,
        what,
      );
    }
    if (last && page.nextCursor !== undefined) {
      invalid(at, "is the last page but has a nextCursor: the dump is incomplete", what);
    }
    for (const x of page.items) items.push(x);
  });
  return items;
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
  const page = itemsPage(value, "tools", where, what);
  return { tools: page.items, nextCursor: page.nextCursor };
}

/**
 * Reads one page of any list result (or a JSON-RPC response carrying one):
 * the array under `member`, and `nextCursor`, a string when present and not null.
 */
export function itemsPage(
  value: JsonValue,
  member: string,
  where: string,
  what: string,
): { items: JsonValue[]; nextCursor: string | undefined } {
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
    invalid(
      where,
      `is not a ${member === "tools" ? "tools/list" : "list"} result (expected an object with a ${member} array)`,
      what,
    );
  }
  const items = getMember(result as JsonObject, member);
  if (!Array.isArray(items)) {
    invalid(
      where,
      items === undefined
        ? `has no ${member} array`
        : `has a ${member} member that is not an array`,
      what,
    );
  }
  const cursor = getMember(result as JsonObject, "nextCursor");
  if (cursor !== undefined && cursor !== null && typeof cursor !== "string") {
    invalid(`${where}.nextCursor`, "is not a string", what);
  }
  return { items, nextCursor: typeof cursor === "string" ? cursor : undefined };
}

/** The JSON-RPC error code of an unknown method. */
export const METHOD_NOT_FOUND = -32601;

/**
 * Whether a list response says the server does not implement the method: a
 * JSON-RPC error response (it has `jsonrpc`) whose `error.code` is -32601
 * (SPEC.md 10.1). Read from the raw response, never from the library's parse.
 */
export function isMethodNotFound(value: JsonValue | undefined): boolean {
  if (!isJsonObject(value) || !Object.hasOwn(value, "jsonrpc")) return false;
  const error = getMember(value, "error");
  return isJsonObject(error) && getMember(error, "code") === METHOD_NOT_FOUND;
}

function invalid(where: string, problem: string, what = "a tools/list dump"): never {
  throw new ContractpinError("DUMP_INVALID", `not ${what}: ${where} ${problem}`);
}
