// Report files (--output, --sarif, --json-file; dump --output) never replace a file the
// command reads, and never overwrite each other: each is refused (exit 2,
// one line, nothing written, nothing read) before any server is read.
import assert from "node:assert/strict";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { tempDir } from "../helpers/cleanup.js";
import { oneLine, runCli } from "../helpers/cli.js";
import { SERVERS } from "../helpers/servers.js";
import { baseTools, Workspace } from "../helpers/workspace.js";

function pinned(): { ws: Workspace; lock: string; snapshots: string; dump: string } {
  const ws = new Workspace();
  ws.dump("tools.json", baseTools());
  const r = runCli(["add", "docs", "--file", "tools.json"], { cwd: ws.dir });
  assert.equal(r.code, 0, r.stderr);
  return {
    ws,
    lock: ws.read(),
    snapshots: ws.read("contractpin.contracts.json"),
    dump: ws.read("tools.json"),
  };
}

function refused(ws: Workspace, args: string[], message: RegExp): void {
  const r = runCli(args, { cwd: ws.dir });
  assert.equal(r.code, 2, r.stderr);
  assert.equal(r.stdout, "");
  assert.ok(oneLine(r.stderr), r.stderr);
  assert.match(r.stderr, message);
}

describe("report files", () => {
  it("verify: a report file that is the lock, its snapshots or a dump it reads is refused; all three stay", () => {
    const { ws, lock, snapshots, dump } = pinned();
    refused(
      ws,
      ["verify", "--output", "contractpin.lock"],
      /^contractpin: --output contractpin\.lock is the lock, which this command reads; writing the report there would replace it \(see 'contractpin verify --help'\)\n$/,
    );
    refused(
      ws,
      ["verify", "--sarif", "./contractpin.contracts.json"],
      /^contractpin: --sarif \.\/contractpin\.contracts\.json is the lock's contract snapshots, /,
    );
    refused(
      ws,
      ["verify", "--json-file", "tools.json"],
      /^contractpin: --json-file tools\.json is the dump of server docs, /,
    );
    // The same file by another name.
    symlinkSync(ws.path("contractpin.lock"), ws.path("alias.lock"));
    refused(ws, ["verify", "--format", "sarif", "--output", "alias.lock"], /is the lock, /);
    assert.equal(ws.read(), lock);
    assert.equal(ws.read("contractpin.contracts.json"), snapshots);
    assert.equal(ws.read("tools.json"), dump);
  });

  it("verify: two report options that name one file are refused, unless they hold the same report", () => {
    const { ws } = pinned();
    refused(
      ws,
      ["verify", "--output", "r.txt", "--sarif", "r.txt"],
      /^contractpin: --output and --sarif name the same file, r\.txt; one report would overwrite the other \(see 'contractpin verify --help'\)\n$/,
    );
    refused(
      ws,
      ["verify", "--sarif", "r.json", "--json-file", "./r.json"],
      /--sarif and --json-file/,
    );
    const same = runCli(
      ["verify", "--format", "sarif", "--output", "r.sarif", "--sarif", "./r.sarif"],
      {
        cwd: ws.dir,
      },
    );
    assert.equal(same.code, 0, same.stderr);
    assert.equal(JSON.parse(ws.read("r.sarif")).version, "2.1.0");
  });

  it("diff: a report file that is OLD, NEW or their snapshots is refused; both locks stay", () => {
    const { ws, lock } = pinned();
    assert.equal(
      runCli(["add", "docs", "--file", "tools.json", "--lock", "new.lock"], { cwd: ws.dir }).code,
      0,
    );
    const newLock = ws.read("new.lock");
    refused(
      ws,
      ["diff", "contractpin.lock", "new.lock", "--output", "new.lock"],
      /^contractpin: --output new\.lock is NEW, which this command reads; .*\(see 'contractpin diff --help'\)\n$/,
    );
    refused(
      ws,
      ["diff", "contractpin.lock", "new.lock", "--sarif", "contractpin.contracts.json"],
      /is the contract snapshots beside OLD, /,
    );
    refused(
      ws,
      ["diff", "contractpin.lock", "tools.json", "--json-file", "tools.json"],
      /--json-file tools\.json is NEW, /,
    );
    assert.equal(ws.read(), lock);
    assert.equal(ws.read("new.lock"), newLock);
    const ok = runCli(["diff", "contractpin.lock", "new.lock", "--output", "d.txt"], {
      cwd: ws.dir,
    });
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ws.read("d.txt"), /^SAME: /m);
  });
});

describe("dump --output", () => {
  it("of a server of the lock: the lock or its snapshots as --output is refused; both stay", () => {
    const ws = new Workspace();
    const add = runCli(["add", "fake", "--", process.execPath, SERVERS.fakeStdio], {
      cwd: ws.dir,
    });
    assert.equal(add.code, 0, add.stderr);
    const lock = ws.read();
    const snapshots = ws.read("contractpin.contracts.json");
    refused(
      ws,
      ["dump", "fake", "--output", "./contractpin.lock"],
      /^contractpin: --output \.\/contractpin\.lock is the lock, which this command reads; writing the dump there would replace it \(see 'contractpin dump --help'\)\n$/,
    );
    refused(
      ws,
      ["dump", "fake", "--output", "contractpin.contracts.json"],
      /is the lock's contract snapshots, /,
    );
    assert.equal(ws.read(), lock);
    assert.equal(ws.read("contractpin.contracts.json"), snapshots);
  });
});

describe("report files are never written through a symbolic link", () => {
  it("a report file, or a folder of its path in the project, that is a link is refused (exit 2, one line); the file it leads to stays", () => {
    const { ws } = pinned();
    const victim = tempDir("contractpin-victim-");
    writeFileSync(join(victim, "target"), "precious\n");
    symlinkSync(join(victim, "target"), ws.path("link.sarif"));
    symlinkSync(victim, ws.path("out"));
    for (const [flag, path] of [
      ["--sarif", "link.sarif"],
      ["--json-file", "link.sarif"],
      ["--output", "link.sarif"],
    ]) {
      refused(
        ws,
        ["verify", flag!, path!],
        /^contractpin: link\.sarif: cannot write the report: it is a symbolic link, and contractpin does not write through one; nothing was written \(remove the link, or give another path\)\n$/,
      );
    }
    refused(
      ws,
      ["verify", "--sarif", "out/new/../x.sarif"],
      new RegExp(
        `^contractpin: out/new/\\.\\./x\\.sarif: cannot write the report: ${ws.path("out").replace(/[.]/g, "\\.")} is a symbolic link, `,
      ),
    );
    assert.equal(readFileSync(join(victim, "target"), "utf8"), "precious\n");
    assert.deepEqual(readdirSync(victim), ["target"]);
    // The job summary too: a warning, the verdict stands, the file it leads to stays.
    symlinkSync(join(victim, "target"), ws.path("summary.md"));
    const summary = runCli(["verify"], {
      cwd: ws.dir,
      env: { GITHUB_STEP_SUMMARY: ws.path("summary.md") },
    });
    assert.equal(summary.code, 0, summary.stderr);
    assert.match(
      summary.stderr,
      /^contractpin: warning: \S+summary\.md: cannot write the job summary: it is a symbolic link, /m,
    );
    assert.equal(readFileSync(join(victim, "target"), "utf8"), "precious\n");
    // A link above the project (the machine's own, as /tmp on macOS) is not the repository's: it is used.
    const above = tempDir("contractpin-above-");
    symlinkSync(ws.dir, join(above, "repo"));
    const ok = runCli(["verify", "--sarif", join(above, "repo", "ok.sarif")], { cwd: ws.dir });
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(JSON.parse(ws.read("ok.sarif")).version, "2.1.0");
    // And a real folder of the project is fine.
    mkdirSync(ws.path("reports"));
    const inFolder = runCli(["verify", "--sarif", "reports/x.sarif"], { cwd: ws.dir });
    assert.equal(inFolder.code, 0, inFolder.stderr);
    assert.ok(existsSync(ws.path("reports/x.sarif")));
  });
});
