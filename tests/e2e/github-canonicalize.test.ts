// Under GitHub Actions (GITHUB_ACTIONS=true in every step), `contractpin
// canonicalize` on a pipe writes the canonical bytes as they are, so that a
// workflow can hash them; only a value holding `##[` (a workflow command
// wherever it stands in a line, and not escapable without changing the
// bytes) is written inside stop-commands markers.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { runCli } from "../helpers/cli.js";

const actions = { GITHUB_ACTIONS: "true" };

describe("canonicalize under GITHUB_ACTIONS=true", () => {
  it("writes exactly the canonical bytes", () => {
    const r = runCli(["canonicalize", "-"], {
      input: '{"b": [1.0, -0, 1e21], "a": "::add-mask::x", "é": null}',
      env: actions,
    });
    assert.equal(r.code, 0, r.stderr);
    // By hand (spec 3): keys by UTF-16 code units, ECMAScript numbers, no whitespace.
    assert.equal(r.stdout, '{"a":"::add-mask::x","b":[1,0,1e+21],"é":null}');
    assert.equal(r.stderr, "");
  });

  it("puts a value holding ##[ inside stop-commands markers", () => {
    const r = runCli(["canonicalize", "-"], { input: '["##[error]x"]', env: actions });
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.split("\n");
    const token = /^::stop-commands::([0-9a-f]{32})$/.exec(lines[0]!)?.[1];
    assert.ok(token, r.stdout);
    assert.equal(lines[1], '["##[error]x"]');
    assert.equal(lines[2], `::${token}::`);
  });
});
