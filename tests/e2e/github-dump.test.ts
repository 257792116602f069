// Under GitHub Actions (GITHUB_ACTIONS=true in every step), `contractpin dump`
// on a pipe is still a dump: it is JSON data, written outside the
// stop-commands block as verify --json is, so `dump NAME | digest -` works in
// a workflow. A server's `##[` in it is written `#\u0023[` (the same value),
// and no line of it starts with `::`.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { runCli } from "../helpers/cli.js";
import { Workspace } from "../helpers/workspace.js";

const SERVER = fileURLToPath(
  new URL("../fixtures/servers/github-evil-server.mjs", import.meta.url),
);

describe("dump under GITHUB_ACTIONS=true", () => {
  it("prints a dump that digest reads back to the live digests; nothing in it is a command", () => {
    const ws = new Workspace();
    writeFileSync(ws.path("mode"), "evil");
    const add = runCli(["add", "evil", "--tools-only", "--", process.execPath, SERVER, "mode"], {
      cwd: ws.dir,
      env: { GITHUB_ACTIONS: undefined },
    });
    assert.equal(add.code, 0, add.stderr);
    const pinned = JSON.parse(ws.read()).servers.evil;

    const r = runCli(["dump", "evil"], { cwd: ws.dir, env: { GITHUB_ACTIONS: "true" } });
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.stdout.startsWith("[\n") && r.stdout.endsWith("\n]\n"), r.stdout.slice(0, 200));
    assert.ok(!r.stdout.includes("##["), r.stdout);
    for (const line of r.stdout.split(/\r\n|\r|\n/))
      assert.ok(!line.trimStart().startsWith("::"), line);

    const digest = runCli(["digest", "--json", "-"], { cwd: ws.dir, input: r.stdout });
    assert.equal(digest.code, 0, digest.stderr);
    const read = JSON.parse(digest.stdout);
    assert.equal(read.digest, pinned.digest);
    assert.deepEqual(read.tools, pinned.tools);
  });
});
