// Reports sized for a real upgrade (issue 23): the contracts of three real
// releases of @modelcontextprotocol/server-filesystem (tests/fixtures/upgrade,
// origin in its README), compared by `contractpin diff` of two dumps (no
// server starts). What changed between the releases was read from the
// fixtures themselves (see the README), not from contractpin:
// 2026.1.14 -> 2026.8.31: every one of the 14 tools gained
// `openWorldHint: false`; move_file's destructiveHint went false -> true;
// read_media_file's description and output schema were rewritten (a new
// `anyOf` of an image/audio item and an embedded resource).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { runCli, type CliResult } from "../helpers/cli.js";

const dir = fileURLToPath(new URL("../fixtures/upgrade/", import.meta.url));
const file = (version: string) => `${dir}server-filesystem-${version}.json`;
const diff = (from: string, to: string, ...args: string[]): CliResult => {
  const r = runCli(["diff", file(from), file(to), ...args]);
  assert.equal(r.code, 1, r.stderr);
  return r;
};

type Tool = { name: string } & Record<string, unknown>;
const tools = (version: string): Tool[] =>
  (JSON.parse(readFileSync(file(version), "utf8")) as { tools: Tool[] }).tools;

const NAMES = tools("2026.8.31").map((t) => t.name);
const OPEN_WORLD_ONLY = NAMES.filter((n) => n !== "move_file");

describe("the text report of a real upgrade groups identical changes", () => {
  it("2026.1.14 -> 2026.8.31: openWorldHint once for the 13 tools, then move_file and read_media_file", () => {
    const r = diff("2026.1.14", "2026.8.31");
    const out = r.stdout.split("\n");
    assert.equal(out[0], "server-filesystem-2026.8.31.json  DRIFT  (14 pinned tools)");
    // One group, first: every tool but move_file (whose openWorldHint comes
    // with another finding), each named once.
    assert.deepEqual(out.slice(1, 4), [
      `  DRIFTED    13 tools: ${OPEN_WORLD_ONLY.join(", ")}`,
      "    [low] annotation-changed at annotations",
      "      annotations/openWorldHint: (absent) -> false",
    ]);
    assert.deepEqual(out.slice(4, 7), [
      "  DRIFTED    move_file        changed: annotations",
      "    [medium] annotation-destructive-added at annotations/destructiveHint: false -> true",
      "    annotations/openWorldHint: (absent) -> false",
    ]);
    assert.equal(
      out[7],
      "  DRIFTED    read_media_file  changed: annotations, description, outputSchema",
    );
    assert.equal(out.filter((l) => /^ {2}\S/.test(l)).length, 3, "three blocks");
    assert.ok(out.includes("    and 1 change shared with other tools, above"), r.stdout);
    // The report of the whole release reads in one screen.
    assert.ok(out.length <= 40, `${out.length} lines:\n${r.stdout}`);
    assert.doesNotMatch(r.stdout, /…/);
  });

  it("2025.7.1 -> 2026.8.31: shared changes once, and no value is cut in the middle", () => {
    const r = diff("2025.7.1", "2026.8.31");
    const out = r.stdout.split("\n");
    // All 12 old tools gained the same output schema: one group.
    const at = out.findIndex((l) => /^ {2}DRIFTED {4}12 tools: /.test(l));
    assert.ok(at > 0, r.stdout);
    assert.deepEqual(out.slice(at + 1, at + 7), [
      "    [medium] output-schema-changed at outputSchema",
      `      outputSchema/$schema: (absent) -> "http://json-schema.org/draft-07/schema#"`,
      "      outputSchema/additionalProperties: (absent) -> false",
      `      outputSchema/properties: (absent) -> {"content":{"type":"string"}}`,
      `      outputSchema/required: (absent) -> ["content"]`,
      `      outputSchema/type: (absent) -> "object"`,
    ]);
    // create_directory's added annotations, member by member: idempotentHint is seen.
    const create = out.findIndex((l) => /^ {2}DRIFTED {4}create_directory +changed: /.test(l));
    assert.ok(create > 0, r.stdout);
    assert.deepEqual(out.slice(create + 1, create + 6), [
      "    [low] annotation-changed at annotations",
      "      annotations/destructiveHint: (absent) -> false",
      "      annotations/idempotentHint: (absent) -> true",
      "      annotations/openWorldHint: (absent) -> false",
      "      annotations/readOnlyHint: (absent) -> false",
    ]);
    // Every value is whole, the added tools' too: no "…"; the new anyOf of
    // read_media_file (added) is shown branch by branch.
    assert.doesNotMatch(r.stdout, /…/);
    assert.ok(
      out.includes(
        `    outputSchema/properties/content/items/anyOf/1/properties/type: {"const":"resource","type":"string"}`,
      ),
      r.stdout,
    );
    // Before grouping: 271 lines, 28 values cut. With the findings labelled as
    // they are now (a property added to a schema that accepted anything is a
    // low input-schema-changed with its changes under it, not a high per
    // property), 167: fewer groups form, and no value is cut.
    assert.ok(out.length <= 170, `${out.length} lines`);
  });

  it("--verbose shows a long value whole, on its line", () => {
    const r = diff("2026.1.14", "2026.8.31", "--verbose");
    const media = tools("2026.8.31").find((t) => t.name === "read_media_file")!;
    const anyOf = (
      media["outputSchema"] as { properties: { content: { items: { anyOf: unknown } } } }
    ).properties.content.items.anyOf;
    // The fixture's keys are in canonical order: JSON.stringify is its canonical JSON.
    assert.ok(
      r.stdout
        .split("\n")
        .includes(
          `      outputSchema/properties/content/items/anyOf: (absent) -> ${JSON.stringify(anyOf)}`,
        ),
      r.stdout,
    );
    assert.doesNotMatch(r.stdout, /…/);
  });
});

describe("grouping is presentation: the CI formats", () => {
  it("--json and SARIF keep one finding per tool: 16", () => {
    const json = JSON.parse(diff("2026.1.14", "2026.8.31", "--json").stdout) as {
      servers: { tools: { name: string; findings?: { rule: string }[] }[] }[];
    };
    const found = json.servers[0]!.tools.flatMap((t) =>
      (t.findings ?? []).map((f) => `${t.name}/${f.rule}`),
    );
    assert.equal(found.length, 16);
    for (const name of OPEN_WORLD_ONLY) assert.ok(found.includes(`${name}/annotation-changed`));
    const sarif = JSON.parse(diff("2026.1.14", "2026.8.31", "--format", "sarif").stdout) as {
      runs: { results: unknown[] }[];
    };
    assert.equal(sarif.runs[0]!.results.length, 16);
  });

  it("markdown: one bullet per distinct finding, the group naming its 13 tools", () => {
    const md = diff("2026.1.14", "2026.8.31", "--format", "markdown").stdout;
    const bullets = md.split("\n").filter((l) => l.startsWith("- **"));
    assert.equal(bullets.length, 4, md);
    const group = bullets.filter((l) => l.includes("annotation-changed"));
    assert.equal(group.length, 1, md);
    assert.ok(group[0]!.includes(`13 tools: ${OPEN_WORLD_ONLY.join(", ")}:`), group[0]);
  });

  it("github: one annotation per distinct finding; the notice still counts every finding", () => {
    const out = diff("2026.1.14", "2026.8.31", "--format", "github").stdout;
    const commands = out.split("\n").filter((l) => l.startsWith("::"));
    assert.equal(commands.length, 5, out);
    const group = commands.filter((l) => l.includes("annotation-changed"));
    assert.equal(group.length, 1);
    assert.match(
      group[0]!,
      /^::warning .*title=contractpin low%3A annotation-changed \(13 tools\)::/,
    );
    assert.ok(group[0]!.includes(`13 tools: ${OPEN_WORLD_ONLY.join(", ")}:`), group[0]);
    assert.equal(
      commands.at(-1),
      "::notice title=contractpin::contractpin: 16 findings (2 errors, 14 warnings)",
    );
  });
});
