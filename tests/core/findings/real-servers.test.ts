// The rules over the contracts real servers serve: the installed servers
// (devDependencies, listed live over stdio by the test's own client) and
// releases of server-filesystem kept as raw tools/list answers
// (tests/fixtures/real-contracts). Every finding at medium or above is pinned
// here by hand, each reviewed as justified (see the comments); a new one is a
// false positive until someone reviews it. Below medium, only the catch-alls
// may appear.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { contractOf, type Contract } from "../../../src/core/contract/contract.js";
import { classifyServer } from "../../../src/core/findings/classify.js";
import type { Finding } from "../../../src/core/findings/finding.js";
import { firstSightFindings } from "../../../src/core/findings/first-sight.js";
import { surfaceFromDump } from "../../../src/core/surface/dump.js";
import { digestSurface } from "../../../src/core/surface/surface.js";
import { parseJson } from "../../../src/core/json/strict-json.js";
import { toolsFromDump } from "../../../src/core/contract/tools-list.js";
import { tempDir } from "../../helpers/cleanup.js";
import { rawStdioDump, rawSurfaceDump, SERVERS } from "../../helpers/servers.js";

const aliased = (alias: string) =>
  fileURLToPath(new URL(`../../../node_modules/${alias}/dist/index.js`, import.meta.url));
const contracts = (dump: Uint8Array): Contract[] =>
  toolsFromDump(parseJson(dump)).map((t) => contractOf(t));
const live = (argv: string[]) => contracts(rawStdioDump([process.execPath, ...argv]));
const release = (version: string) =>
  contracts(
    readFileSync(
      new URL(
        `../../fixtures/real-contracts/server-filesystem-${version}.tools.json`,
        import.meta.url,
      ),
    ),
  );

const dir = tempDir();
const SOURCES: Record<string, () => Contract[]> = {
  "filesystem@2026.8.31": () => live([SERVERS.filesystem, dir]),
  "filesystem@2025.11.25": () => live([aliased("server-filesystem-2025.11.25"), dir]),
  "filesystem@2026.1.14": () => release("2026.1.14"),
  "filesystem@2025.8.21": () => release("2025.8.21"),
  "filesystem@2025.7.1": () => release("2025.7.1"),
  "everything@2026.8.31": () => live([SERVERS.everything, "stdio"]),
  "everything@2025.11.25": () => live([aliased("server-everything-2025.11.25"), "stdio"]),
  "memory@2026.8.31": () => live([SERVERS.memory]),
};
const cache = new Map<string, Contract[]>();
const served = (key: string) => {
  if (!cache.has(key)) cache.set(key, SOURCES[key]!());
  return cache.get(key)!;
};

// Catch-alls and removals: low findings that are never a false alarm.
const LOW_ALLOWED = new Set([
  "description-changed",
  "input-schema-changed",
  "annotation-changed",
  "tool-removed",
]);

/** `severity rule tool` of each finding at medium or above, sorted; asserts the rest are catch-alls. */
function notable(findings: Finding[]): string[] {
  for (const f of findings.filter((f) => f.severity === "low"))
    assert.ok(LOW_ALLOWED.has(f.rule), `unexpected low finding ${f.rule} on ${f.tool}`);
  return findings
    .filter((f) => f.severity !== "low")
    .map((f) => `${f.severity} ${f.rule} ${f.tool ?? ""}`)
    .sort();
}

// The read_file of server-filesystem says "DEPRECATED: Use read_text_file
// instead": it names a sibling tool without steering the model to it, which
// is no finding (issue 38; it was a medium description-tool-mention before).
// move_file declared destructiveHint false while it says "Move or rename files";
// upstream itself set it to true in 2026.8.31.
const MOVE_CLAIM = "high annotation-nondestructive-claimed move_file";

describe("first sight: the rules over each real server as if it had been empty", () => {
  const expected: Record<string, string[]> = {
    "filesystem@2026.8.31": [],
    "filesystem@2025.11.25": [MOVE_CLAIM],
    "filesystem@2026.1.14": [MOVE_CLAIM],
    // write_file's "overwrite existing files without warning" is a caution, not concealment.
    "filesystem@2025.8.21": [],
    "filesystem@2025.7.1": [],
    // gzip-file-as-resource's default `data` is a URL the model reads.
    "everything@2026.8.31": ["medium description-url gzip-file-as-resource"],
    // "City name or zip code" does not mention the tool `zip`.
    "everything@2025.11.25": [],
    "memory@2026.8.31": [],
  };
  for (const [key, want] of Object.entries(expected)) {
    it(key, () => {
      const findings = classifyServer([], served(key)).filter((f) => f.rule !== "tool-added");
      assert.deepEqual(notable(findings), [...want].sort());
    });
  }
});

describe("real upgrades: the rules over an old release pinned and the new one served", () => {
  // Output schemas appeared in 2025.11.25 (medium, as the rule says for any change).
  const outputs = (tools: string) =>
    tools.split(" ").map((t) => `medium output-schema-changed ${t}`);
  const FS_TOOLS =
    "create_directory directory_tree edit_file get_file_info list_allowed_directories list_directory list_directory_with_sizes move_file read_file read_multiple_files search_files write_file";
  const expected: [from: string, to: string, want: string[]][] = [
    // The old schemas held only `$schema` (accepted anything): typed properties
    // narrow them, so no input-property-added; two tools were added.
    [
      "filesystem@2025.7.1",
      "filesystem@2026.8.31",
      [
        ...outputs(FS_TOOLS),
        "medium tool-added read_media_file",
        "medium tool-added read_text_file",
      ],
    ],
    [
      "filesystem@2025.8.21",
      "filesystem@2026.8.31",
      outputs(`${FS_TOOLS} read_media_file read_text_file`),
    ],
    // move_file now declares destructiveHint true: more danger declared (medium).
    [
      "filesystem@2026.1.14",
      "filesystem@2026.8.31",
      ["medium annotation-destructive-added move_file", ...outputs("read_media_file")],
    ],
    [
      "filesystem@2025.11.25",
      "filesystem@2026.8.31",
      ["medium annotation-destructive-added move_file", ...outputs("read_media_file")],
    ],
    // echo's schema dropped additionalProperties: false (a real widening); the
    // other tools were renamed, so they are added; gzip's default URL as above.
    [
      "everything@2025.11.25",
      "everything@2026.8.31",
      [
        "high input-additional-properties-opened echo",
        "medium description-url gzip-file-as-resource",
        ..."get-annotated-message get-env get-resource-links get-resource-reference get-structured-content get-sum get-tiny-image gzip-file-as-resource simulate-research-query toggle-simulated-logging toggle-subscriber-updates trigger-long-running-operation"
          .split(" ")
          .map((t) => `medium tool-added ${t}`),
      ],
    ],
  ];
  for (const [from, to, want] of expected) {
    it(`${from} -> ${to}`, () => {
      assert.deepEqual(notable(classifyServer(served(from), served(to))), [...want].sort());
    });
  }
});

describe("first sight over the whole surface: tools, instructions, prompts, templates", () => {
  // Everything the rules read, as audit reads it after a pin: the names of all
  // kinds compared for look-alikes, and the text of each part.
  const surfaceOf = (argv: string[], methods: string[], env: Record<string, string> = {}) => {
    const dump = parseJson(Buffer.from(rawSurfaceDump([process.execPath, ...argv], methods, env)));
    const { tools, surface } = surfaceFromDump(dump);
    return {
      contracts: tools.map((t) => contractOf(t)),
      surfaceContracts: digestSurface(surface).contracts,
    };
  };
  const LISTS = ["tools/list", "prompts/list", "resources/templates/list"];
  const cases: [string, () => ReturnType<typeof surfaceOf>, string[]][] = [
    // The instructions say "Prefer reading resources before calling mutating
    // tools": a directive to the model, in the place it reads on every turn.
    [
      "everything@2026.8.31",
      () => surfaceOf([SERVERS.everything, "stdio"], LISTS),
      ["high instructions-directive ", "medium description-url gzip-file-as-resource"],
    ],
    [
      "everything@2025.11.25",
      () => surfaceOf([aliased("server-everything-2025.11.25"), "stdio"], LISTS),
      [],
    ],
    [
      "memory@2026.8.31",
      () => surfaceOf([SERVERS.memory], ["tools/list", "resources/templates/list"]),
      [],
    ],
    [
      "postgres@0.6.2",
      () =>
        surfaceOf(
          [SERVERS.postgres, "postgresql://127.0.0.1:1/none"],
          ["tools/list", "resources/templates/list"],
        ),
      [],
    ],
  ];
  for (const [name, read, want] of cases) {
    it(name, () => {
      const findings = firstSightFindings(name, read());
      assert.deepEqual(notable(findings), [...want].sort());
    });
  }
});
