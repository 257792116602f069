// What a re-pin's review leaves out because its change report showed it
// already (src/core/findings/first-sight.ts, notShown): the same tool, rule
// and place, never merely the same rule.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { notShown } from "../../../src/core/findings/first-sight.js";
import { toFinding } from "../../../src/core/findings/finding.js";

const at = (tool: string, pointer: string, after: string) =>
  toFinding({ rule: "description-url", pointer, after }, tool, "s");

describe("notShown", () => {
  it("keeps a finding of a rule shown already at another place, or of another tool", () => {
    const shown = [at("fetch", "/description", "https://a.example/")];
    const review = [
      at("fetch", "/description", "https://a.example/"),
      at("fetch", "/inputSchema/properties/url/description", "https://b.example/"),
      at("get", "/description", "https://a.example/"),
    ];
    assert.deepEqual(notShown(review, shown), review.slice(1));
  });

  it("keeps everything when nothing was shown, and nothing of what was", () => {
    const review = [at("fetch", "/description", "x"), at("fetch", "/title", "y")];
    assert.deepEqual(notShown(review, []), review);
    assert.deepEqual(notShown(review, review), []);
  });
});
