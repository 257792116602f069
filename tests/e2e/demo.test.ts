// The README's first command, `npm run demo` (examples/demo.mjs on the built
// CLI): its three steps exit as it says, the drift it plants is explained,
// and it leaves no folder behind.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { it } from "node:test";
import { tempDir } from "../helpers/cleanup.js";
import { ROOT } from "../helpers/cli.js";

it("npm run demo pins, verifies, and catches the planted drift with its findings", () => {
  const tmp = tempDir("contractpin-demo-test-");
  const r = spawnSync(process.execPath, [join(ROOT, "examples/demo.mjs")], {
    cwd: ROOT,
    env: { ...process.env, TMPDIR: tmp, NO_COLOR: "1", GITHUB_ACTIONS: undefined },
    encoding: "utf8",
    timeout: 60_000,
  });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.equal(r.stderr, "");
  assert.deepEqual(
    [...r.stdout.matchAll(/^\(exit (\d+)\)$/gm)].map((m) => m[1]),
    ["0", "0", "1"],
  );
  assert.match(r.stdout, /^memory {2}ok {2}\(9 pinned tools\)$/m);
  assert.match(r.stdout, /DRIFTED {4}read_graph {2}changed: annotations, description/);
  assert.match(
    r.stdout,
    /\[high\] annotation-readonly-removed at annotations\/readOnlyHint: true -> false/,
  );
  assert.match(
    r.stdout,
    /\[medium\] description-directive at description: gained "Before answering", "also call"/,
  );
  assert.match(r.stdout, /\[medium\] description-tool-mention at description: gained "open_nodes"/);
  assert.match(r.stdout, /to accept the change after reviewing it: contractpin update memory/);
  assert.deepEqual(readdirSync(tmp), []);
});
