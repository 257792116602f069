// What the text report shows of a changed contract (issue 23): a finding with
// the changes it is about, a value added whole split into its members rather
// than cut, at most SPLIT_CAP lines per value, and the key that decides
// which entries of two tools are identical.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Contract } from "../../src/core/contract/contract.js";
import { toFinding } from "../../src/core/findings/finding.js";
import {
  changeEntries,
  entryKey,
  SPLIT_CAP,
  VALUE_WIDTH,
} from "../../src/cli/render/change-entries.js";
import { entryLines } from "../../src/cli/render/entry-text.js";
import { style } from "../../src/cli/render/style.js";

const plain = style(false);
const tool = (extra: Partial<Contract> = {}): Contract => ({
  name: "t",
  description: "A tool.",
  inputSchema: { type: "object" },
  ...extra,
});
const lines = (before: Contract, after: Contract, verbose = false) =>
  changeEntries(before, after, [], { verbose }).flatMap((e) => entryLines(e, "", plain, verbose));

describe("a value added whole", () => {
  it("short: one line, whole", () => {
    assert.deepEqual(lines(tool(), tool({ annotations: { readOnlyHint: true } })), [
      `annotations: (absent) -> {"readOnlyHint":true}`,
    ]);
  });

  it(`longer than ${VALUE_WIDTH} characters: its members, each on a line; --verbose: whole`, () => {
    const annotations = {
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
      readOnlyHint: false,
    };
    assert.ok(JSON.stringify(annotations).length > VALUE_WIDTH);
    assert.deepEqual(lines(tool(), tool({ annotations })), [
      "annotations/destructiveHint: (absent) -> false",
      "annotations/idempotentHint: (absent) -> true",
      "annotations/openWorldHint: (absent) -> false",
      "annotations/readOnlyHint: (absent) -> false",
    ]);
    assert.deepEqual(lines(tool(), tool({ annotations }), true), [
      `annotations: (absent) -> ${JSON.stringify(annotations)}`,
    ]);
  });

  it(`at most ${SPLIT_CAP} lines, then how many are left out`, () => {
    const properties = Object.fromEntries(
      Array.from({ length: SPLIT_CAP + 5 }, (_, i) => [
        `p${String(i).padStart(2, "0")}`,
        { type: "string", description: "x".repeat(VALUE_WIDTH) },
      ]),
    );
    const shown = lines(tool(), tool({ outputSchema: { properties } }));
    // Each property splits in two (description and type): 30 lines (15
    // properties), then how many properties are left.
    assert.equal(shown.length, SPLIT_CAP + 1);
    assert.equal(
      shown[0],
      `outputSchema/properties/p00/description: (absent) -> "${"x".repeat(80)}"`,
    );
    assert.equal(
      shown.at(-1),
      `… ${SPLIT_CAP + 5 - SPLIT_CAP / 2} more value(s) of outputSchema left out: --verbose shows it whole`,
    );
    assert.equal(lines(tool(), tool({ outputSchema: { properties } }), true).length, 1);
  });

  it("two long strings: a word diff, not a cut", () => {
    const text = (word: string) => `${"Reads a page and returns it. ".repeat(4)}${word} end.`;
    const prop = (d: string) => ({ type: "object", properties: { q: { description: d } } });
    assert.deepEqual(
      lines(tool({ inputSchema: prop(text("old")) }), tool({ inputSchema: prop(text("new")) })),
      [
        "inputSchema/properties/q/description:",
        `  ${"Reads a page and returns it. ".repeat(4)}[-old-]{+new+} end.`,
      ],
    );
  });
});

describe("findings and their changes", () => {
  it("a finding inside an added value splits it; the line it states whole is not repeated", () => {
    const after = tool({
      inputSchema: { type: "object", properties: { a: { type: "string" }, b: { type: "number" } } },
    });
    const found = ["a", "b"].map((p) =>
      toFinding(
        {
          rule: "input-property-added",
          pointer: `/inputSchema/properties/${p}`,
          after: { type: p === "a" ? "string" : "number" },
        },
        "t",
        "s",
      ),
    );
    const entries = changeEntries(tool({ inputSchema: { type: "object" } }), after, found);
    assert.deepEqual(
      entries.flatMap((e) => entryLines(e, "", plain, false)),
      [
        `[high] input-property-added at inputSchema/properties/a: (absent) -> {"type":"string"}`,
        `[high] input-property-added at inputSchema/properties/b: (absent) -> {"type":"number"}`,
      ],
    );
  });

  it("identical entries of two tools have one key; another value or severity another", () => {
    const entry = (name: string, after: boolean) =>
      changeEntries(
        tool({ name, annotations: { readOnlyHint: true } }),
        tool({ name, annotations: { readOnlyHint: true, openWorldHint: after } }),
        [toFinding({ rule: "annotation-changed", pointer: "/annotations" }, name, "s")],
      )[0]!;
    assert.equal(entryKey("drifted", entry("a", false)), entryKey("drifted", entry("b", false)));
    assert.notEqual(entryKey("drifted", entry("a", false)), entryKey("drifted", entry("b", true)));
    assert.notEqual(entryKey("drifted", entry("a", false)), entryKey("removed", entry("b", false)));
    const louder = { ...entry("b", false) };
    louder.findings = [{ ...louder.findings[0]!, severity: "high" }];
    assert.notEqual(entryKey("drifted", entry("a", false)), entryKey("drifted", louder));
  });
});
