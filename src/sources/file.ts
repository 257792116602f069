import { resolve } from "node:path";
import { ContractpinError } from "../core/errors.js";
import type { JsonValue } from "../core/json/json-value.js";
import type { FileSource } from "../core/source/server-source.js";
import { parseJson } from "../core/json/strict-json.js";
import { isSurfaceDump, surfaceFromDump } from "../core/surface/dump.js";
import { toolsFromDump } from "../core/contract/tools-list.js";
import { readRegularFile } from "../io/read-input.js";
import type { ReadContext, ServerRead } from "./read-context.js";

/**
 * Reads a tools/list dump named by a lock (`path` relative to the lock's
 * directory): a regular file of at most ctx.maxMessageBytes, read and parsed
 * within ctx.timeoutMs. A FIFO or a device is refused rather than waited on.
 */
export async function readFileTools(source: FileSource, ctx: ReadContext): Promise<JsonValue[]> {
  const { surface: _ignored, ...toolsOnly } = ctx;
  return (await readFileServer(source, toolsOnly)).tools;
}

/**
 * {@link readFileTools}, and the surface of a surface dump (SPEC.md 10.3)
 * when `ctx.surface` asks for it; resources only when asked too.
 */
export async function readFileServer(source: FileSource, ctx: ReadContext): Promise<ServerRead> {
  ctx.signal?.throwIfAborted();
  // process.hrtime, not performance.now(): the global `performance` loads
  // perf_hooks, a few milliseconds of every verify of a file server.
  const started = process.hrtime.bigint();
  const bytes = readRegularFile(
    resolve(ctx.lockDir, source.path),
    ctx.maxMessageBytes,
    " (--max-message-mib raises it)",
  );
  const dump = parseJson(bytes);
  let read: ServerRead;
  if (isSurfaceDump(dump)) {
    const whole = surfaceFromDump(dump, ctx.surface?.resources);
    read = { tools: whole.tools };
    if (ctx.surface === undefined) {
      const { instructions, lists } = whole.surface;
      read.servesMore =
        (instructions !== undefined && instructions !== null) ||
        Object.values(lists).some((list) => list !== null);
    } else {
      read.surface = whole.surface;
    }
  } else {
    read = { tools: toolsFromDump(dump) };
  }
  // Reading and parsing are synchronous: a dump that took longer than the
  // deadline is refused afterwards, as a live server's late answer would be.
  if (Number(process.hrtime.bigint() - started) / 1e6 > ctx.timeoutMs) {
    throw new ContractpinError("SERVER_UNREADABLE", `timed out after ${ctx.timeoutMs / 1000} s`);
  }
  ctx.signal?.throwIfAborted();
  return read;
}
