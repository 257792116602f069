import type { Client } from "@modelcontextprotocol/client";
import { ContractpinError } from "../../core/errors.js";
import { getMember, isJsonObject, type JsonObject } from "../../core/json/json-value.js";
import { advertises, capabilitiesOf } from "../../core/surface/dump.js";
import { SURFACE_KINDS } from "../../core/contract/kinds.js";
import type { ServedSurface } from "../../core/surface/surface.js";
import type { ReadContext } from "../read-context.js";
import type { RawLog } from "./raw-log.js";
import { listPages } from "./session.js";

/**
 * Reads what a connected server serves besides tools (SPEC.md 10.1): the
 * instructions and capabilities of the initialize (or server/discover)
 * result as the strict parser read it, then every list the server
 * advertises, resources only when `ctx.surface.resources`. A list it does
 * not advertise is never asked for.
 */
export async function readSurface(
  client: Client,
  log: RawLog,
  ctx: ReadContext,
  signal: AbortSignal,
  pastDeadline: () => boolean,
): Promise<ServedSurface> {
  const init = log.lastResponse("initialize");
  const result = init === undefined ? undefined : getMember(init, "result");
  if (!isJsonObject(result)) {
    throw new ContractpinError(
      "SERVER_UNREADABLE",
      "the server's initialize result was not captured, so its instructions cannot be read",
    );
  }
  ctx.onRawResponse?.("initialize", log.lastBytes("initialize"));
  const capabilities = capabilitiesOf(result as JsonObject, "SERVER_UNREADABLE");
  const surface: ServedSurface = { instructions: getMember(result, "instructions"), lists: {} };
  for (const kind of SURFACE_KINDS) {
    if (kind.optIn && ctx.surface?.resources !== true) continue;
    if (!advertises(capabilities, kind)) {
      surface.lists[kind.id] = null;
      continue;
    }
    surface.lists[kind.id] = await listPages(
      client,
      log,
      kind.method,
      kind.member,
      signal,
      ctx.timeoutMs,
      pastDeadline,
      (bytes) => ctx.onRawResponse?.(kind.method, bytes),
      kind.optIn
        ? `without --resources the server is pinned without its ${kind.noun}s`
        : "--tools-only pins the server on its tools alone",
    );
  }
  return surface;
}

/**
 * Whether the initialize (or server/discover) result advertises tools
 * (SPEC.md 10.1): tools/list is asked only then, as clients ask it. A result
 * that was not captured asks it too: reading more never pins less.
 */
export function advertisesTools(log: RawLog): boolean {
  const result = log.lastResponse("initialize")?.["result"];
  if (!isJsonObject(result)) return true;
  return advertises(capabilitiesOf(result, "SERVER_UNREADABLE"), { capability: "tools" });
}

/**
 * Whether the initialize (or server/discover) result shows more than tools:
 * instructions, or a prompts or resources capability.
 */
export function servesMore(log: RawLog): boolean {
  const result = log.lastResponse("initialize")?.["result"];
  if (!isJsonObject(result)) return false;
  const instructions = getMember(result, "instructions");
  if (instructions !== undefined && instructions !== null) return true;
  const capabilities = getMember(result, "capabilities");
  return isJsonObject(capabilities) && SURFACE_KINDS.some((k) => advertises(capabilities, k));
}
