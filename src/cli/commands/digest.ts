import { digestTools } from "../../core/contract/digest.js";
import { prettyJson } from "../../core/json/pretty-json.js";
import { parseJson } from "../../core/json/strict-json.js";
import { isSurfaceDump, surfaceFromDump } from "../../core/surface/dump.js";
import { digestSurface, withSurfaceDigests } from "../../core/surface/surface.js";
import { toolsFromDump } from "../../core/contract/tools-list.js";
import { readInput } from "../../io/read-input.js";
import { parseCommandArgs } from "../args.js";
import { EXIT } from "../exit-code.js";
import type { Io } from "../io.js";
import { renderServerDigests } from "../render/digest-text.js";
import { inertJson } from "../render/report-model.js";

export const help = `Usage: contractpin digest [FILE|-] [--json]

Computes the contract digests of a tools/list dump: each tool's digest and
field digests, and the server digest (spec sections 2-4). Reads FILE (a
regular file), or standard input when FILE is - or absent; at most 64 MiB.

Accepted dumps:
  a tools/list result           {"tools": [...]}
  a JSON-RPC response           {"jsonrpc": "2.0", "id": 1, "result": {"tools": [...]}}
  a paginated dump              [page, page, ...]  (every page but the last has a nextCursor)

Options:
  --json    print the lock file's per-server object (tool_count, digest, tools),
            pretty-printed with sorted keys
  --help    show this help

Exit codes: 0 digests printed; 2 the input was rejected (one line on stderr says why).

Examples:
  contractpin digest tools.json
  contractpin dump memory | contractpin digest - --json
`;

export async function run(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    "digest",
    args,
    { json: { type: "boolean" } },
    1,
  );
  const dump = parseJson(await readInput(positionals[0] ?? "-"));
  // A surface dump (SPEC.md 10.3) gives the lock's whole server object, surface included.
  let digests;
  if (isSurfaceDump(dump)) {
    const read = surfaceFromDump(dump);
    digests = withSurfaceDigests(digestTools(read.tools), digestSurface(read.surface).digests);
  } else {
    digests = digestTools(toolsFromDump(dump));
  }
  if (values.json) {
    // Data, as verify --json is: parseable under GitHub Actions (no
    // stop-commands markers), and no tool name in it can form a command.
    await (io.data ?? io.out)(inertJson(prettyJson(digests)) + "\n");
  } else {
    await io.out(renderServerDigests(digests, io.color));
  }
  return EXIT.OK;
}
