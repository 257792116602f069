import { resolve } from "node:path";
import type { JsonValue } from "../core/json-value.js";
import type { FileSource } from "../core/server-source.js";
import { parseJson } from "../core/strict-json.js";
import { toolsFromDump } from "../core/tools-list.js";
import { readInput } from "../io/read-input.js";
import type { ReadContext } from "./read-tools.js";

/** Reads a tools/list dump named by a lock (`path` relative to the lock's directory). */
export async function readFileTools(source: FileSource, ctx: ReadContext): Promise<JsonValue[]> {
  return toolsFromDump(parseJson(await readInput(resolve(ctx.lockDir, source.path))));
}
