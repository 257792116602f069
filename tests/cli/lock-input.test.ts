// The lock is read like any other input: a regular file of bounded size. A
// lock path that names a FIFO, a device or a directory fails at once (exit 2)
// instead of hanging or filling memory.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import { after, describe, it } from "node:test";
import { oneLine, runCli } from "../helpers/cli.js";
import { Workspace } from "../helpers/workspace.js";

const ws = new Workspace();
after(() => rmSync(ws.dir, { recursive: true, force: true }));

describe("a lock that is not a regular file", () => {
  const cases: [string, () => string, RegExp][] = [
    [
      "a FIFO",
      () => {
        execFileSync("mkfifo", [ws.path("fifo.lock")]);
        return ws.path("fifo.lock");
      },
      /cannot read the lock: it is a FIFO \(named pipe\), not a regular file/,
    ],
    ["/dev/zero", () => "/dev/zero", /cannot read the lock: it is a character device/],
    ["a directory", () => ws.dir, /cannot read the lock: it is a directory/],
  ];
  for (const [what, path, message] of cases) {
    it(`${what}: exit 2 at once, one line`, () => {
      const started = Date.now();
      for (const command of [["verify"], ["update"], ["remove", "x"]]) {
        const r = runCli([...command, "--lock", path()], { cwd: ws.dir });
        assert.equal(r.code, 2, r.stderr);
        assert.ok(oneLine(r.stderr), r.stderr);
        assert.match(r.stderr, message);
        if (what === "a FIFO") rmSync(ws.path("fifo.lock"));
      }
      // runCli gives up after 60 s; a hang would be far beyond this.
      assert.ok(Date.now() - started < 30_000);
    });
  }
});

describe("a lock that is not valid JSON", () => {
  it("names the line and column of the error", () => {
    ws.write("truncated.lock", '{\n  "contractpin": "1",\n  "servers": {\n');
    const r = runCli(["verify", "--lock", "truncated.lock"], { cwd: ws.dir });
    assert.equal(r.code, 2, r.stderr);
    assert.ok(oneLine(r.stderr), r.stderr);
    assert.match(
      r.stderr,
      /^contractpin: truncated\.lock: lock is corrupt: expected a member name in double quotes but found end of input at byte 39 \(\$\.servers\) \(line 4, column 1\)\n$/,
    );
  });

  it("with git conflict markers: says to resolve them and re-pin with update", () => {
    ws.write(
      "merged.lock",
      '{\n  "contractpin": "1",\n<<<<<<< HEAD\n  "generated_at": "a",\n=======\n  "generated_at": "b",\n>>>>>>> feature\n}\n',
    );
    const r = runCli(["update", "--lock", "merged.lock"], { cwd: ws.dir });
    assert.equal(r.code, 2, r.stderr);
    assert.ok(oneLine(r.stderr), r.stderr);
    assert.match(r.stderr, /\(line 3, column 1\); it has git conflict markers: resolve them/);
    assert.match(r.stderr, /then run 'contractpin update' to re-pin from the servers\n$/);
  });
});

describe("a lock whose URL holds a user name and password", () => {
  // `check` calls this a credential and never shows it; fetch refused the URL
  // with an error that quoted it whole, so verify printed the password.
  it("fails that server without showing them, in text and JSON (exit 1)", () => {
    const password = "Tr0ub4dor-3-horse";
    // A pinned server of no tools, then reached over HTTP instead.
    ws.dump("none.json", []);
    const add = runCli(["add", "x", "--file", "none.json", "--lock", "userinfo.lock"], {
      cwd: ws.dir,
    });
    assert.equal(add.code, 0, add.stderr);
    const lock = ws.lockJson("userinfo.lock");
    const { path: _path, transport: _transport, ...pinned } = lock.servers["x"]!;
    lock.servers["x"] = {
      ...pinned,
      transport: "http",
      url: `http://admin:${password}@127.0.0.1:9/mcp`,
    };
    ws.write("userinfo.lock", JSON.stringify(lock));
    for (const format of ["text", "json"]) {
      const r = runCli(["verify", "--lock", "userinfo.lock", "--format", format], {
        cwd: ws.dir,
      });
      assert.equal(r.code, 1, r.stderr);
      assert.ok(!(r.stdout + r.stderr).includes(password), r.stdout + r.stderr);
      assert.ok(!(r.stdout + r.stderr).includes("admin"), r.stdout + r.stderr);
      assert.match(
        r.stdout,
        /the URL holds a user name or password, which an HTTP request cannot carry; send the credential in a header that refers to a variable/,
      );
    }
  });
});
