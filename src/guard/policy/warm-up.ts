import { parseJson } from "../../core/json/strict-json.js";
import { itemsPage } from "../../core/contract/tools-list.js";
import { checkTools } from "./policy.js";
import { textPath } from "../../core/json/canonical-bytes.js";

/** Pinned tools from which the guard warms its digest path while the server starts. */
export const WARM_UP_FROM_TOOLS = 200;

/** Made-up tools per slice of the warm-up, and the slices. */
const SLICE_TOOLS = 50;
const SLICES = 6;

/**
 * Runs the path of a tools/list page through the guard (the strict parser,
 * the projection, the canonical bytes, the hash, the comparison with a lock)
 * over made-up tools, while a server whose lock pins many tools starts: a
 * process's first pages run in V8's interpreter, several times slower than
 * compiled code, and a client waits for the first one (docs/guard.md,
 * Start-up). Its results are thrown away: it decides nothing and reports
 * nothing, and every page the server sends is read and digested in full as
 * before. In slices, between which the event loop runs, so that a message of
 * the client or the server is not held up by more than one slice.
 *
 * It runs the canonical writer's byte loop, the path a list this large takes:
 * left to itself, the writer hands a process's first 1,000 values to its text
 * path (textPath in canonical-bytes.ts), and the warm-up's made-up tools used
 * them all up, warming the path the server's tools then never took while the
 * byte loop met them cold (measured: about 10 ms of a 1,000-tool first
 * answer). Both paths write the same bytes (tests/core/contract/vectors.test.ts).
 */
export function warmUp(pinnedTools: number): void {
  if (pinnedTools < WARM_UP_FROM_TOOLS) return;
  textPath.valuesLeft = 0;
  let slice = 0;
  const next = () => {
    runSlice(slice);
    if (++slice < SLICES) setImmediate(next).unref();
  };
  setImmediate(next).unref();
}

function runSlice(slice: number): void {
  const tools = [];
  for (let i = 0; i < SLICE_TOOLS; i++) {
    const n = slice * SLICE_TOOLS + i;
    tools.push({
      name: `warm_up_${n}`,
      description: `Made-up tool ${n}: its contract runs the digest path once.`,
      inputSchema: {
        type: "object",
        properties: {
          text: { type: "string", description: "some input" },
          count: { type: "integer", minimum: n % 7 },
          flag: { type: "boolean" },
        },
        required: ["text"],
      },
      annotations: { readOnlyHint: n % 2 === 0 },
    });
  }
  const line = Buffer.from(
    JSON.stringify({ jsonrpc: "2.0", id: `warm-up-${slice}`, result: { tools } }),
  );
  const page = itemsPage(parseJson(line), "tools", "the warm-up", "a tools/list result");
  checkTools({ tools: {} }, page.items);
}
