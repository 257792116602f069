import { ContractpinError } from "../core/errors.js";
import type { JsonValue } from "../core/json-value.js";
import type { HttpSource, StdioSource } from "../core/server-source.js";
import type { ReadContext } from "./read-tools.js";

/** Live servers over stdio and HTTP. */
export async function readLiveTools(
  source: StdioSource | HttpSource,
  _ctx: ReadContext,
): Promise<JsonValue[]> {
  throw new ContractpinError(
    "SOURCE_INVALID",
    `the ${source.transport} transport is not available in this build`,
  );
}
