// A cloned repository is data: it can commit the lock or its contract
// snapshots as a symbolic link to a file outside it (~/.bashrc), or put a
// file that is not a snapshot where the snapshots go. Every command that
// writes the lock refuses such a file before it reads a server (exit 2, one
// line, nothing written), and the file outside stays byte for byte.
import assert from "node:assert/strict";
import { lstatSync, readFileSync, readdirSync, symlinkSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { oneLine, runCli } from "../helpers/cli.js";
import { baseTools, Workspace } from "../helpers/workspace.js";

const SIDECAR = "contractpin.contracts.json";

/** Every command that writes the lock and its snapshots; each would change them here. */
const WRITERS: { name: string; args: string[] }[] = [
  { name: "add", args: ["add", "extra", "--file", "docs.json"] },
  { name: "update", args: ["update"] },
  { name: "update NAME", args: ["update", "docs"] },
  { name: "init --force", args: ["init", "--force"] },
  { name: "remove", args: ["remove", "more"] },
  { name: "upgrade --write", args: ["upgrade", "--all", "--write"] },
];

/**
 * A project with two pinned file servers (lock and snapshots as regular
 * files), whose servers then changed, so that every writer has something to
 * write; and a folder outside it.
 */
function project(): { ws: Workspace; outside: Workspace } {
  const ws = new Workspace();
  ws.dump("docs.json", baseTools());
  ws.dump("more.json", [{ name: "more_tool", inputSchema: { type: "object" } }]);
  for (const name of ["docs", "more"]) {
    const r = runCli(["add", name, "--file", `${name}.json`], { cwd: ws.dir });
    assert.equal(r.code, 0, r.stderr);
  }
  ws.dump("docs.json", [...baseTools(), { name: "new_tool", inputSchema: { type: "object" } }]);
  return { ws, outside: new Workspace() };
}

/** Every file of `dir`, by name, with its bytes. */
function contents(dir: string): Record<string, string> {
  return Object.fromEntries(
    readdirSync(dir)
      .sort()
      .map((name) => [name, readFileSync(join(dir, name), "latin1")]),
  );
}

/** Runs `args`, and asserts the refusal: exit 2, one line matching `line`, no server read. */
function refused(ws: Workspace, args: string[], line: RegExp, what: string): void {
  const r = runCli(args, { cwd: ws.dir });
  assert.equal(r.code, 2, `${what}: ${r.stdout}${r.stderr}`);
  assert.ok(oneLine(r.stderr), `${what}: ${r.stderr}`);
  assert.match(r.stderr, line, what);
  assert.equal(r.stdout, "", what);
}

describe("the contract snapshots committed as a symbolic link", () => {
  for (const victim of ["a shell profile", "a contract snapshot file"]) {
    for (const { name, args } of WRITERS) {
      it(`${name}, the link to ${victim} outside: exit 2, nothing written there or here`, () => {
        const { ws, outside } = project();
        const target =
          victim === "a shell profile"
            ? outside.write(".bashrc", "export PATH=$HOME/bin:$PATH\n")
            : outside.write("contracts.json", ws.read(SIDECAR));
        unlinkSync(ws.path(SIDECAR));
        symlinkSync(target, ws.path(SIDECAR));
        const before = { inside: contents(ws.dir), outside: contents(outside.dir) };
        refused(
          ws,
          args,
          /^contractpin: contractpin\.contracts\.json: cannot write the contract snapshots: it is a symbolic link, and contractpin does not write through one; nothing was written/,
          name,
        );
        assert.deepEqual(contents(outside.dir), before.outside, name);
        assert.deepEqual(contents(ws.dir), before.inside, name);
        assert.ok(lstatSync(ws.path(SIDECAR)).isSymbolicLink(), name);
      });
    }
  }
});

describe("the lock committed as a symbolic link", () => {
  for (const { name, args } of WRITERS) {
    it(`${name}, the link to a lock outside: exit 2, the lock outside byte for byte`, () => {
      const { ws, outside } = project();
      const target = outside.write("contractpin.lock", ws.read());
      unlinkSync(ws.path("contractpin.lock"));
      symlinkSync(target, ws.path("contractpin.lock"));
      const before = { inside: contents(ws.dir), outside: contents(outside.dir) };
      refused(
        ws,
        args,
        /^contractpin: contractpin\.lock: cannot write the lock: it is a symbolic link, and contractpin does not write through one; nothing was written/,
        name,
      );
      assert.deepEqual(contents(outside.dir), before.outside, name);
      assert.deepEqual(contents(ws.dir), before.inside, name);
    });
  }

  it("a lock in a folder of the checkout that is a link (--lock sub/contractpin.lock): exit 2", () => {
    const { ws, outside } = project();
    outside.write("contractpin.lock", ws.read());
    symlinkSync(outside.dir, ws.path("sub"));
    const before = contents(outside.dir);
    for (const args of [
      ["add", "extra", "--file", "docs.json", "--lock", "sub/contractpin.lock"],
      ["init", "--force", "--lock", "sub/contractpin.lock"],
    ]) {
      refused(
        ws,
        args,
        /^contractpin: sub\/contractpin\.lock: cannot write the lock: .*\/sub is a symbolic link, and contractpin does not write through one; nothing was written/,
        args[0]!,
      );
    }
    assert.deepEqual(contents(outside.dir), before);
  });
});

describe("a file in the snapshots' place that contractpin did not write", () => {
  const foreign: [what: string, text: string, why: string][] = [
    ["a script", "touch ~/PWNED\n", "it is not JSON"],
    ["another JSON file", '{ "servers": {} }\n', 'it has no "contractpin-contracts" member'],
  ];
  for (const [what, text, why] of foreign) {
    for (const { name, args } of WRITERS) {
      it(`${name} over ${what}: exit 2, saying how to proceed; the file and the lock unchanged`, () => {
        const { ws } = project();
        ws.write(SIDECAR, text);
        const before = contents(ws.dir);
        refused(
          ws,
          args,
          new RegExp(
            `^contractpin: contractpin\\.contracts\\.json: cannot write the contract snapshots: the file there is not a contract snapshot file \\(${why.replace(/[()"]/g, "\\$&")}\\), and contractpin replaces only its own; nothing was written; move it aside or delete it, then run the command again\\n$`,
          ),
          name,
        );
        assert.deepEqual(contents(ws.dir), before, name);
      });
    }
  }

  it("with --no-snapshot the pin is written and the file left alone; once it is moved aside, a pin writes the snapshots", () => {
    const { ws } = project();
    ws.write(SIDECAR, "touch ~/PWNED\n");
    const lock = ws.read();
    const r = runCli(["update", "--no-snapshot"], { cwd: ws.dir });
    assert.equal(r.code, 0, r.stderr);
    assert.notEqual(ws.read(), lock);
    assert.equal(ws.read(SIDECAR), "touch ~/PWNED\n");
    unlinkSync(ws.path(SIDECAR));
    const again = runCli(["update"], { cwd: ws.dir });
    assert.equal(again.code, 0, again.stderr);
    assert.match(ws.read(SIDECAR), /^\{\n {2}"contractpin-contracts": "1",/);
  });
});
