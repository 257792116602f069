// The lock is read in `git diff` like its snapshots: a tool name from a server
// holding a bidirectional override, a C1 control (U+009B is CSI to a terminal
// that reads C1), a zero-width or a line-separator character is written as a
// `\u` escape, never raw; the values, and so every digest and verdict, are
// the same, and re-pinning the same tools does not rewrite the file.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { runCli } from "../helpers/cli.js";
import { Workspace } from "../helpers/workspace.js";

const HIDDEN = /[\u0080-\u009f\u200b\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/;

describe("the lock's text", () => {
  it("holds a server's hidden characters as \\u escapes; verify and check still pass, no churn", () => {
    const ws = new Workspace();
    const name = "read\u202eelif\u009b2J\u200b\u2028x";
    ws.dump("tools.json", [{ name, description: "Reads a file." }]);
    const add = runCli(["add", "fs\u2066", "--file", "tools.json"], { cwd: ws.dir });
    assert.equal(add.code, 0, add.stderr);
    const text = ws.read();
    assert.ok(!HIDDEN.test(text), JSON.stringify(text));
    assert.ok(text.includes('"read\\u202eelif\\u009b2J\\u200b\\u2028x": {'), text);
    assert.ok(text.includes('"fs\\u2066": {'), text);
    assert.deepEqual(Object.keys(ws.lockJson().servers["fs\u2066"]!["tools"] as object), [name]);

    const verify = runCli(["verify"], { cwd: ws.dir });
    assert.equal(verify.code, 0, verify.stderr);
    const check = runCli(["check"], { cwd: ws.dir });
    assert.equal(check.code, 0, check.stdout + check.stderr);

    const update = runCli(["update"], { cwd: ws.dir });
    assert.equal(update.code, 0, update.stderr);
    assert.equal(ws.read(), text);
  });
});
