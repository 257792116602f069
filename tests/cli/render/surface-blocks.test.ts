// The text report's surface blocks (src/cli/render/surface-text.ts): a part's
// findings are written in its block, relative to it, and a finding that no
// block holds stays under the server's head line: never left unshown.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ServerFinding } from "../../../src/core/contract/compare.js";
import { toFinding } from "../../../src/core/findings/finding.js";
import type { ServerExplained } from "../../../src/engine/explain-server.js";
import { renderVerifyText } from "../../../src/cli/render/verify-text.js";

const digest = `sha256:${"a".repeat(64)}` as const;

function server(surface: ServerFinding["surface"]): ServerFinding {
  return { name: "s", status: "drift", pinnedDigest: digest, tools: [], surface };
}

const leak = toFinding(
  { rule: "description-override", pointer: "/prompts/leak/description", after: ["Ignore"] },
  undefined,
  "s",
);

describe("surface blocks", () => {
  it("a moved part's finding is in its block, its pointer relative to the part", () => {
    const explained: ServerExplained = {
      tools: new Map(),
      findings: [leak],
      surface: new Map([["prompts\u0000leak", {}]]),
    };
    const text = renderVerifyText(
      [server([{ part: "prompts", key: "leak", status: "drifted", pinned: digest, live: digest }])],
      false,
      { explained: new Map([["s", explained]]) },
    );
    const lines = text.split("\n");
    const head = lines.indexOf("  DRIFTED    prompt leak  changed: fields unknown");
    assert.ok(head > 0, text);
    assert.equal(
      lines[head + 1],
      '    [high] description-override at description: gained "Ignore"',
    );
    assert.equal(lines[1], lines[head], "nothing above the block under the server line");
  });

  it("a finding about a part with no block stays under the server's line", () => {
    // The prompt did not move here: no block holds its finding.
    const explained: ServerExplained = { tools: new Map(), findings: [leak] };
    const text = renderVerifyText(
      [
        server([
          { part: "prompts", key: "leak", status: "unchanged", pinned: digest, live: digest },
        ]),
      ],
      false,
      { explained: new Map([["s", explained]]) },
    );
    assert.ok(
      text.includes(
        '\n  [high] description-override at prompts/leak/description: gained "Ignore"\n',
      ),
      text,
    );
  });
});
