// Where output goes: contractpin writes straight to a pipe or a file
// (src/cli/io.ts) and uses Node's stream only for a terminal, /dev/null, or
// a pipe that its reader made non-blocking and that is full. Whatever stdout
// is, the output must arrive whole, colour only on a terminal.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { CLI, runCli } from "../helpers/cli.js";
import { onTerminal } from "../helpers/terminal.js";
import { baseTools, Workspace } from "../helpers/workspace.js";

/** Runs python3 with `script`; argv[1..] are `args`. Returns its stdout. */
function python(script: string, args: string[], cwd: string): string {
  const r = spawnSync("python3", ["-c", script, ...args], {
    cwd,
    encoding: "utf8",
    timeout: 60_000,
  });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

describe("output", () => {
  const ws = new Workspace();
  let piped: string;

  before(() => {
    // Over 64 KB of output: more than a pipe holds.
    ws.dump(
      "big.json",
      Array.from({ length: 1000 }, (_, i) => ({ name: `tool_${i}`, description: "d" })),
    );
    const r = runCli(["digest", "--json", "big.json"], { cwd: ws.dir });
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.stdout.length > 200_000);
    piped = r.stdout;
  });
  after(() => rmSync(ws.dir, { recursive: true, force: true }));

  it("to a file: all of it", () => {
    const r = spawnSync(
      "bash",
      ["-c", `"${process.execPath}" "${CLI}" digest --json big.json > out.json`],
      { cwd: ws.dir, encoding: "utf8" },
    );
    assert.equal(r.status, 0, r.stderr);
    assert.equal(readFileSync(ws.path("out.json"), "utf8"), piped);
  });

  it("to /dev/null: the exit code is kept", () => {
    ws.dump("small.json", baseTools());
    const r = spawnSync(
      "bash",
      ["-c", `"${process.execPath}" "${CLI}" digest no-such.json > /dev/null`],
      { cwd: ws.dir, encoding: "utf8" },
    );
    assert.equal(r.status, 2);
    assert.match(r.stderr, /cannot read no-such\.json: no such file/);
  });

  it("to a full pipe its reader made non-blocking: all of it, in order", () => {
    // The pipe fills while nobody reads it, so write(2) says EAGAIN.
    const out = python(
      `
import os, subprocess, sys, time, hashlib
r, w = os.pipe()
os.set_blocking(w, False)
p = subprocess.Popen([sys.argv[1], sys.argv[2], "digest", "--json", "big.json"], stdout=w)
os.close(w)
time.sleep(1.0)
data = b""
while True:
    chunk = os.read(r, 1 << 16)
    if not chunk:
        break
    data += chunk
print(p.wait(), len(data), hashlib.sha256(data).hexdigest())
`,
      [process.execPath, CLI],
      ws.dir,
    );
    const expected = createHash("sha256").update(piped).digest("hex");
    assert.equal(out.trim(), `0 ${Buffer.byteLength(piped)} ${expected}`);
  });

  it("to a terminal: in colour, and without it under NO_COLOR", () => {
    ws.dump("small.json", baseTools());
    const coloured = onTerminal(["digest", "small.json"], { NO_COLOR: undefined }, ws.dir);
    assert.equal(coloured.code, 0);
    assert.ok(coloured.data.includes("\u001b["), "colour on a terminal");
    assert.ok(coloured.data.includes("fetch_page"));
    const plain = onTerminal(["digest", "small.json"], { NO_COLOR: "1" }, ws.dir);
    assert.equal(plain.code, 0);
    assert.ok(!plain.data.includes("\u001b["), "no colour under NO_COLOR");
    assert.ok(plain.data.includes("fetch_page"));
  });

  it("word diffs: red and green on a terminal, never under NO_COLOR nor into a pipe", () => {
    const drift = new Workspace();
    drift.dump("docs.json", baseTools());
    assert.equal(runCli(["add", "docs", "--file", "docs.json"], { cwd: drift.dir }).code, 0);
    const tools = baseTools();
    tools[0]!["description"] = "Search the whole index for documents.";
    drift.dump("docs.json", tools);
    const coloured = onTerminal(["verify"], { NO_COLOR: undefined }, drift.dir);
    assert.equal(coloured.code, 1, coloured.data);
    assert.ok(coloured.data.includes("\u001b[31m[-"), coloured.data);
    assert.ok(coloured.data.includes("\u001b[32m{+"), coloured.data);
    const plain = onTerminal(["verify"], { NO_COLOR: "1" }, drift.dir);
    assert.equal(plain.code, 1);
    assert.ok(plain.data.includes("[-") && plain.data.includes("{+"), plain.data);
    assert.ok(!plain.data.includes("\u001b[31m") && !plain.data.includes("\u001b[32m"), plain.data);
    const piped = runCli(["verify"], { cwd: drift.dir });
    assert.ok(piped.stdout.includes("{+") && !piped.stdout.includes("\u001b["), piped.stdout);
    rmSync(drift.dir, { recursive: true, force: true });
  });
});
