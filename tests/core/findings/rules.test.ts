import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { describe, it } from "node:test";
import { allRules, RULES, ruleOf, SEVERITIES } from "../../../src/core/findings/rules.js";
import { ROOT } from "../../helpers/cli.js";

const DOC = `${ROOT}docs/findings.md`;
const START =
  "<!-- rules:start (generated from src/core/findings/rules.ts by tests/core/findings/rules.test.ts) -->";
const END = "<!-- rules:end -->";

/** The rules table of docs/findings.md, as the catalogue defines it. */
function rulesTable(): string {
  const cell = (text: string) => text.replaceAll("|", "\\|");
  const rows = allRules().map(
    (r) => `| \`${r.id}\` | ${r.severity} | ${cell(r.title)} | ${cell(r.help)} |`,
  );
  return ["| Rule id | Severity | Title | Help |", "|---|---|---|---|", ...rows].join("\n");
}

describe("the rule catalogue", () => {
  it("has stable kebab-case ids, known severities, one-line titles and help", () => {
    for (const rule of allRules()) {
      assert.match(rule.id, /^[a-z]+(?:-[a-z]+)+$/);
      assert.ok(SEVERITIES.includes(rule.severity), rule.id);
      assert.ok(
        rule.title.length > 0 && rule.title.length <= 80 && !rule.title.endsWith("."),
        rule.id,
      );
      assert.ok(!/\n/.test(rule.title + rule.help), rule.id);
      assert.ok(rule.help.endsWith("."), rule.id);
      // Markup-like text is in backticks, so that the docs do not render it as HTML.
      const outsideCode = (rule.title + rule.help).replace(/`[^`]*`/g, "");
      assert.ok(!/[<>]/.test(outsideCode), rule.id);
      assert.deepEqual(ruleOf(rule.id), { id: rule.id, ...RULES[rule.id] });
    }
  });

  it("is the table in docs/findings.md (UPDATE_DOCS=1 regenerates it)", () => {
    const doc = readFileSync(DOC, "utf8");
    const start = doc.indexOf(START);
    const end = doc.indexOf(END);
    assert.ok(start >= 0 && end > start, `docs/findings.md lacks the ${START} ... ${END} markers`);
    const generated = `${START}\n\n${rulesTable()}\n\n`;
    const current = doc.slice(start, end);
    if (process.env["UPDATE_DOCS"] === "1" && current !== generated) {
      writeFileSync(DOC, doc.slice(0, start) + generated + doc.slice(end));
      return;
    }
    assert.equal(current, generated, "docs/findings.md is out of date: run with UPDATE_DOCS=1");
  });
});
