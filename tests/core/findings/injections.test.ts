// The disguised injections of issue 38 (tests/fixtures/injections/disguised.json)
// through the text rules, as every kind of part reads them: a tool's
// description, a schema string, a server's instructions, a prompt's and a
// resource template's description. Each must give a finding at high or above.
// The same corpus goes through audit and verify in tests/e2e/injections.test.ts.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { atOrAbove } from "../../../src/core/findings/rules.js";
import { toFinding } from "../../../src/core/findings/finding.js";
import { stringFindings, textFindings } from "../../../src/core/findings/text-checks.js";

interface Injection {
  kind: string;
  text: string;
}
const INJECTIONS: Injection[] = JSON.parse(
  readFileSync(new URL("../../fixtures/injections/disguised.json", import.meta.url), "utf8"),
).injections;

const KINDS = [...new Set(INJECTIONS.map((i) => i.kind))];
// The kinds the issue names; each has several texts.
const NAMED = [
  "confusable-letters",
  "spaced-letters",
  "leetspeak",
  "base64",
  "hex",
  "rot13",
  "html-entities",
  "defanged-url",
  "bare-domain",
  "paraphrased-override",
  "paraphrased-concealment",
  "combining-marks",
];

const high = (drafts: ReturnType<typeof textFindings>) =>
  drafts.map((d) => toFinding(d)).filter((f) => atOrAbove(f, "high"));

describe("the corpus of disguised injections", () => {
  it("holds every kind the issue names, several of each", () => {
    assert.deepEqual([...KINDS].sort(), [...NAMED].sort());
    for (const kind of NAMED)
      assert.ok(INJECTIONS.filter((i) => i.kind === kind).length >= 3, kind);
  });
  const places: [string, (text: string) => ReturnType<typeof textFindings>][] = [
    ["a tool's description", (t) => textFindings(undefined, t, "/description")],
    [
      "an argument's description",
      (t) => stringFindings(undefined, { description: t }, "/inputSchema"),
    ],
    ["instructions", (t) => textFindings(undefined, t, "/instructions")],
    ["a prompt", (t) => stringFindings(undefined, { name: "p", description: t }, "/prompts/p")],
    [
      "a resource template",
      (t) =>
        stringFindings(
          undefined,
          { uriTemplate: "x://{id}", description: t },
          "/resource_templates/x",
        ),
    ],
  ];
  for (const { kind, text } of INJECTIONS) {
    it(`${kind}: ${JSON.stringify(text.slice(0, 50))}`, () => {
      for (const [place, run] of places) {
        const found = high(run(text));
        assert.ok(found.length > 0, `${place}: ${JSON.stringify(run(text))}`);
      }
    });
  }
});

describe("the same text, gained by a drift, gives the same findings", () => {
  const clean = "Reads a file from the project directory.";
  for (const { kind, text } of INJECTIONS) {
    it(kind + ": " + JSON.stringify(text.slice(0, 40)), () => {
      const first = textFindings(undefined, text, "/description").map((d) => [d.rule, d.after]);
      const drift = textFindings(clean, text, "/description").map((d) => [d.rule, d.after]);
      assert.deepEqual(drift, first);
    });
  }
});
