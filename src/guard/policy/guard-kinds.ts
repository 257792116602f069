import type { Digest } from "../../core/contract/digest.js";
import type { JsonValue } from "../../core/json/json-value.js";
import type { PinnedServer } from "../../core/lock/lock.js";
import { digestItems } from "../../core/surface/items.js";
import {
  PROMPTS,
  RESOURCE_TEMPLATES,
  RESOURCES,
  TOOLS,
  type Kind,
  type SurfaceKind,
} from "../../core/contract/kinds.js";
import type { ItemEventFields } from "./guard-types.js";
import { checkTools, type CheckResult, type WithheldTool } from "./policy.js";
import { INVALID_PARAMS } from "../wire/rpc-errors.js";

/**
 * One kind of the core's table (core/contract/kinds.ts) as the guard checks it
 * (ListPolicy, list-policy.ts): the kind itself (its list, member, noun and
 * codes), plus its wire data: the request that uses one item, and how the
 * lock judges a list.
 */
export interface GuardKind extends Kind {
  /**
   * The request that uses one item (tools/call), its params member naming
   * it, what a use of a key the server does not list gets (refused; or
   * passed on, as a resource a template makes), and the error a refused use
   * gets. Absent for a kind no request uses by key (resource templates).
   */
  use?: {
    method: string;
    param: "name" | "uri";
    unlisted: "refuse" | "pass";
    refusal: { code: number; message: (key: string) => string; data: string };
  };
  /** Whether the lock checks this kind for this server (else its lists and uses pass unchanged). */
  checked(pinned: PinnedServer): boolean;
  /**
   * The lock's verdict on items as served.
   *
   * @throws ContractpinError a key served twice, an item without a contract.
   */
  check(pinned: PinnedServer, items: readonly JsonValue[], allowNew: boolean): CheckResult;
  /** The event fields naming one item (the tool's `tool`, the surface's `part` and `key`). */
  names(key: string): ItemEventFields;
}

/** Tools: every list checked; a call of a tool not admitted is refused. */
export const TOOLS_KIND: GuardKind = {
  ...TOOLS,
  use: {
    method: "tools/call",
    param: "name",
    unlisted: "refuse",
    refusal: { code: INVALID_PARAMS, message: (key) => `Unknown tool: ${key}`, data: "tool" },
  },
  checked: () => true,
  check: (pinned, items, allowNew) => checkTools(pinned, items, { allowNew }),
  names: (key) => ({ tool: key }),
};

/**
 * Prompts: every list checked, whether the lock pins them or only tools (a
 * tools-only pin withholds every prompt: the guard cannot check one); a
 * prompts/get of a prompt not admitted is refused, as a tool's call is.
 */
export const PROMPTS_KIND: GuardKind = {
  ...surfaceKind(PROMPTS),
  use: {
    method: "prompts/get",
    param: "name",
    unlisted: "refuse",
    refusal: { code: INVALID_PARAMS, message: (key) => `Unknown prompt: ${key}`, data: "prompt" },
  },
};

/** Resource templates: every list checked, as prompts are; no request uses one by its key. */
export const TEMPLATES_KIND: GuardKind = surfaceKind(RESOURCE_TEMPLATES);

/**
 * Resources: checked only when the lock pins them (`--resources`); then a
 * resources/read of a URI the server lists and the guard withheld is
 * refused, and one of a URI it does not list (one a template makes) is
 * passed on: a resource's contents are an output, and the template was checked.
 */
export const RESOURCES_KIND: GuardKind = {
  ...surfaceKind(RESOURCES),
  checked: (pinned) => pinned.surface?.resources !== undefined,
  use: {
    method: "resources/read",
    param: "uri",
    unlisted: "pass",
    // -32602, as MCP 2026-07-28 says a miss is answered (the official SDK maps -32002 to it).
    refusal: { code: INVALID_PARAMS, message: (key) => `Resource not found: ${key}`, data: "uri" },
  },
};

function surfaceKind(kind: SurfaceKind): GuardKind {
  return {
    ...kind,
    checked: () => true,
    check: (pinned, items, allowNew) => checkItems(pinned, kind, items, allowNew),
    names: (key) => ({ part: kind.id, key }),
  };
}

/**
 * Checks one kind's items as served against a server's entry in the lock,
 * as {@link checkTools} checks tools: an item whose key is pinned with its
 * very digest is admitted; one pinned with another digest is withheld as
 * "drifted"; one the lock does not pin (or the lock pins no surface, or not
 * this kind) as "unpinned", unless `allowNew`. The digests are verify's
 * (SPEC.md 10.2), so an item the guard admits is one verify passes.
 *
 * @throws ContractpinError the kind's codes: a key served twice, an item
 *   without a contract (the whole list is refused, never partly trusted).
 */
export function checkItems(
  pinned: PinnedServer,
  kind: SurfaceKind,
  items: readonly JsonValue[],
  allowNew: boolean,
): CheckResult {
  const { contracts, digests } = digestItems(kind, items);
  const list = pinned.surface?.[kind.id] ?? undefined;
  const admitted: JsonValue[] = [];
  const withheld: WithheldTool[] = [];
  const live = new Map<string, Digest>();
  contracts.forEach((contract, index) => {
    const key = contract[kind.key] as string;
    const digest = digests.items[key]!.digest;
    live.set(key, digest);
    const pin = list !== undefined && Object.hasOwn(list.items, key) ? list.items[key] : undefined;
    if (pin === undefined) {
      if (allowNew) admitted.push(items[index]!);
      else withheld.push({ name: key, reason: "unpinned", live: digest });
    } else if (pin.digest === digest) admitted.push(items[index]!);
    else withheld.push({ name: key, reason: "drifted", pinned: pin.digest, live: digest });
  });
  return { admitted, withheld, live };
}
