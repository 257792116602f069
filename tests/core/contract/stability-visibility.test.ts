// `--repeat N` (compareReads): reads whose digests agree but whose
// `_meta.ui.visibility` (a side pin, SPEC.md 13, in no digest) differs are
// unstable, naming the field, so that no read's value is pinned by chance.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { digestTools } from "../../../src/core/contract/digest.js";
import { compareReads, describeUnstable } from "../../../src/core/contract/stability.js";
import type { JsonValue } from "../../../src/core/json/json-value.js";

const tool = (visibility?: JsonValue): JsonValue => ({
  name: "show_chart",
  description: "Draw a chart.",
  ...(visibility === undefined ? {} : { _meta: { ui: { visibility } } }),
});

describe("compareReads and a tool's visibility", () => {
  it("reads with one visibility are stable", () => {
    assert.deepEqual(
      compareReads([digestTools([tool(["app"])]), digestTools([tool(["app"])])]),
      [],
    );
  });

  it("a visibility that differs between reads (or is there in one only) is unstable", () => {
    for (const other of [tool(["model"]), tool()]) {
      const reads = [digestTools([tool(["app"])]), digestTools([other])];
      assert.equal(reads[0]!.digest, reads[1]!.digest);
      const unstable = compareReads(reads);
      assert.deepEqual(unstable, [
        { name: "show_chart", kind: "changed", fields: ["_meta.ui.visibility"] },
      ]);
      assert.equal(
        describeUnstable(2, unstable),
        'unstable between 2 reads: tool "show_chart" (_meta.ui.visibility)',
      );
    }
  });
});
