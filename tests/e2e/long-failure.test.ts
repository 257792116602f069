// A server's own text in a failure is bounded: a JSON-RPC error message or a
// repeated cursor of megabytes (a whole message may be 64 MiB) is cut in the
// middle, in one line of the text report and one string of --json, so that a
// hostile server cannot flood a CI log or a report with one failure. The
// verdict is unchanged: the server could not be read, exit 1.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { runCli } from "../helpers/cli.js";
import { Workspace } from "../helpers/workspace.js";

const SERVER = fileURLToPath(new URL("../fixtures/servers/mode-file-server.mjs", import.meta.url));

describe("a failure with megabytes of the server's text", () => {
  const ws = new Workspace();
  const add = runCli(["add", "long", "--", process.execPath, SERVER], { cwd: ws.dir });
  assert.equal(add.code, 0, add.stderr);

  for (const [mode, start] of [
    [
      "error-huge",
      "long  UNREACHABLE  tools/list page 1: the server answered with a JSON-RPC error -32000: boom \u{1F600}",
    ],
    ["cursor-huge", 'long  UNREACHABLE  the server repeated the cursor "\u{1F600}'],
  ] as const) {
    it(`${mode}: one line of at most 2,000 characters, cut in the middle, exit 1`, () => {
      ws.write("mode.txt", mode);
      const r = runCli(["verify"], { cwd: ws.dir });
      assert.equal(r.code, 1, r.stderr);
      const line = r.stdout.split("\n")[0]!;
      assert.ok(line.startsWith(start), line.slice(0, 200));
      assert.match(line, / … \(\d+ characters left out\) … \u{1F600}+(?: end|")?/u);
      assert.ok(line.length < 2100, String(line.length));
      assert.ok(!/[\ud800-\udfff](?![\udc00-\udfff])/.test(line.replace(/\u{1F600}/gu, "")));
      assert.ok(r.stdout.length < 3000, String(r.stdout.length));

      const json = runCli(["verify", "--json"], { cwd: ws.dir });
      assert.equal(json.code, 1, json.stderr);
      const error = JSON.parse(json.stdout).servers[0].error as string;
      assert.ok(error.length <= 2100 && error.includes(" characters left out) … "), error);
    });
  }
});
