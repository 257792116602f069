import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import {
  existsSync,
  linkSync,
  lstatSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { open } from "node:fs/promises";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";
import { isContractpinError } from "../../src/core/errors.js";
import { validateLock } from "../../src/core/lock/lock.js";
import { parseJson } from "../../src/core/json/strict-json.js";
import {
  writeFileAtomic,
  writeReportAtomic,
  type AtomicWriteOps,
} from "../../src/io/atomic-write.js";
import { killAtEnd } from "../helpers/cleanup.js";
import { CLI, runCli } from "../helpers/cli.js";
import { baseTools, Workspace } from "../helpers/workspace.js";

const STALL_HOOK = fileURLToPath(new URL("../fixtures/stall-lock-write.cjs", import.meta.url));

const OLD = '{"old": true}\n';

/** Real file operations, with one step replaced by a failure. */
function failing(step: "write" | "rename"): AtomicWriteOps {
  return {
    async writeNew(path, data) {
      const handle = await open(path, "wx");
      await handle.writeFile(data.slice(0, data.length / 2));
      await handle.close();
      if (step === "write")
        throw Object.assign(new Error("no space left on device"), { code: "ENOSPC" });
    },
    async rename() {
      throw Object.assign(new Error("input/output error"), { code: "EIO" });
    },
    unlink: (path) => import("node:fs/promises").then((fs) => fs.unlink(path)),
    async syncDir() {},
  };
}

describe("writeFileAtomic", () => {
  for (const step of ["write", "rename"] as const) {
    it(`a failure in ${step} leaves the old file intact and no temporary file`, async () => {
      const ws = new Workspace();
      const path = ws.write("contractpin.lock", OLD);
      await assert.rejects(
        writeFileAtomic(
          path,
          '{"new": true, "long": "' + "x".repeat(10_000) + '"}\n',
          "the lock",
          failing(step),
        ),
        (err) => {
          assert.ok(isContractpinError(err, "LOCK_WRITE_FAILED"));
          assert.match(err.message, /cannot write the lock/);
          return true;
        },
      );
      assert.equal(readFileSync(path, "utf8"), OLD);
      assert.deepEqual(readdirSync(ws.dir), ["contractpin.lock"]);
    });
  }

  it("never writes through a symbolic link: one at the path is refused, its destination untouched", async () => {
    const ws = new Workspace();
    const outside = new Workspace();
    writeFileSync(outside.path("victim"), "precious\n");
    const path = ws.path("contractpin.lock");
    symlinkSync(outside.path("victim"), path);
    await assert.rejects(writeFileAtomic(path, "new\n"), (err) => {
      assert.ok(isContractpinError(err, "WRITE_REFUSED"));
      assert.equal(
        err.message,
        `${path}: cannot write the lock: it is a symbolic link, and contractpin does not write through one; nothing was written (remove the link, or give another path)`,
      );
      return true;
    });
    assert.equal(readFileSync(outside.path("victim"), "utf8"), "precious\n");
    assert.ok(lstatSync(path).isSymbolicLink());
    assert.deepEqual(readdirSync(ws.dir), ["contractpin.lock"]);
  });

  it("replaces the file when nothing fails", async () => {
    const ws = new Workspace();
    const path = ws.write("contractpin.lock", OLD);
    await writeFileAtomic(path, "new\n");
    assert.equal(readFileSync(path, "utf8"), "new\n");
    assert.deepEqual(readdirSync(ws.dir), ["contractpin.lock"]);
  });
});

describe("the lock is only ever replaced by rename", () => {
  /** The lock's inode, and a hard link to it that keeps its content should it be written in place. */
  function pinOld(ws: Workspace): { ino: number; text: string; link: string } {
    const link = ws.path(`old-${statSync(ws.path("contractpin.lock")).ino}.link`);
    linkSync(ws.path("contractpin.lock"), link);
    return { ino: statSync(link).ino, text: readFileSync(link, "utf8"), link };
  }

  it("add, update, init --force and remove each give the lock a new inode; the old one keeps the old content", () => {
    const ws = new Workspace();
    ws.dump("a.json", baseTools());
    ws.dump("b.json", [{ name: "b" }]);
    assert.equal(runCli(["add", "a", "--file", "a.json"], { cwd: ws.dir }).code, 0);
    const steps: [string[], () => void][] = [
      [["add", "b", "--file", "b.json"], () => undefined],
      [["update", "a"], () => ws.dump("a.json", [...baseTools(), { name: "new_tool" }])],
      [["init", "--force"], () => ws.dump("b.json", [{ name: "b", description: "Changed." }])],
      [["remove", "a"], () => undefined],
    ];
    for (const [args, change] of steps) {
      const old = pinOld(ws);
      change();
      const r = runCli(args, { cwd: ws.dir });
      assert.equal(r.code, 0, `${args.join(" ")}: ${r.stderr}`);
      const now = statSync(ws.path("contractpin.lock"));
      assert.notEqual(now.ino, old.ino, `${args.join(" ")} wrote the lock in place`);
      assert.equal(
        readFileSync(old.link, "utf8"),
        old.text,
        `${args.join(" ")} changed the old file`,
      );
      assert.notEqual(ws.read(), old.text, `${args.join(" ")} changed nothing`);
      validateLock(parseJson(ws.read()));
    }
    assert.deepEqual(
      readdirSync(ws.dir).filter((n) => n.startsWith(".")),
      [],
      "no temporary file is left",
    );
  });

  it("writeFileAtomic writes a new file beside the target, then renames it over the target: nothing else", async () => {
    const ws = new Workspace();
    const path = ws.write("contractpin.lock", OLD);
    const calls: string[] = [];
    const real = {
      writeNew: async (p: string, data: string, mode: number) => {
        calls.push(`writeNew ${p}`);
        const handle = await open(p, "wx", mode);
        await handle.writeFile(data);
        await handle.close();
      },
      rename: async (from: string, to: string) => {
        calls.push(`rename ${from} ${to}`);
        await import("node:fs/promises").then((fs) => fs.rename(from, to));
      },
      unlink: async (p: string) => void calls.push(`unlink ${p}`),
      syncDir: async (dir: string) => void calls.push(`syncDir ${dir}`),
    } satisfies AtomicWriteOps;
    const old = pinOld(ws);
    await writeFileAtomic(path, "new\n", "the lock", real);
    assert.equal(calls.length, 3, calls.join("\n"));
    const temp = calls[0]!.slice("writeNew ".length);
    assert.equal(dirname(temp), ws.dir);
    assert.notEqual(temp, path);
    assert.deepEqual(calls.slice(1), [`rename ${temp} ${path}`, `syncDir ${ws.dir}`]);
    assert.equal(readFileSync(path, "utf8"), "new\n");
    assert.equal(readFileSync(old.link, "utf8"), OLD);
  });
});

describe("a writer killed mid-write", () => {
  it("SIGKILL while the lock's text is half written: the lock is the old one, byte for byte", async () => {
    const ws = new Workspace();
    ws.dump("docs.json", baseTools());
    assert.equal(runCli(["add", "docs", "--file", "docs.json"], { cwd: ws.dir }).code, 0);
    const old = ws.read();
    ws.dump("docs.json", [...baseTools(), { name: "new_tool" }]);
    const marker = ws.path("stalled");
    const child = spawn(process.execPath, ["--require", STALL_HOOK, CLI, "update"], {
      cwd: ws.dir,
      env: { ...process.env, STALL_MARKER: marker },
      stdio: "ignore",
    });
    killAtEnd(child);
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.on("exit", (_code, signal) => resolve(signal)),
    );
    const deadline = Date.now() + 30_000;
    while (!existsSync(marker) && child.exitCode === null && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    assert.ok(existsSync(marker), "the writer reached the write of the lock");
    assert.equal(child.exitCode, null, "and is stopped in the middle of it");
    child.kill("SIGKILL");
    assert.equal(await exited, "SIGKILL");
    assert.equal(ws.read(), old, "the lock is untouched");
    validateLock(parseJson(ws.read()));
    // The half-written text went to a temporary file beside the lock, never into it.
    // (The writer's guard, .contractpin.lock.lck, stays too: the next run finds its pid dead.)
    const temps = readdirSync(ws.dir).filter(
      (n) => n.startsWith(".contractpin.lock.") && n.endsWith(".tmp"),
    );
    assert.equal(temps.length, 1, readdirSync(ws.dir).join(", "));
    assert.throws(() => parseJson(readFileSync(ws.path(temps[0]!))), "it holds half a lock");
    // And the next run replaces the lock as usual.
    assert.equal(runCli(["update"], { cwd: ws.dir }).code, 0);
    assert.match(ws.read(), /new_tool|"tool_count": 3/);
  });
});

describe("report files are written as the lock is", () => {
  it("SIGKILL while a SARIF report is half written: the old report stays whole; the next run replaces it, with a new inode", async () => {
    const ws = new Workspace();
    ws.dump("docs.json", baseTools());
    assert.equal(runCli(["add", "docs", "--file", "docs.json"], { cwd: ws.dir }).code, 0);
    const first = runCli(["verify", "--sarif", "out.sarif", "--json-file", "out.json"], {
      cwd: ws.dir,
    });
    assert.equal(first.code, 0, first.stderr);
    const old = readFileSync(ws.path("out.sarif"), "utf8");
    JSON.parse(old);
    ws.dump("docs.json", [...baseTools(), { name: "new_tool" }]);
    const marker = ws.path("stalled");
    const child = spawn(
      process.execPath,
      ["--require", STALL_HOOK, CLI, "verify", "--sarif", "out.sarif"],
      {
        cwd: ws.dir,
        env: { ...process.env, STALL_MARKER: marker, STALL_MATCH: '"runs"' },
        stdio: "ignore",
      },
    );
    killAtEnd(child);
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.on("exit", (_code, signal) => resolve(signal)),
    );
    const deadline = Date.now() + 30_000;
    while (!existsSync(marker) && child.exitCode === null && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    assert.ok(existsSync(marker), "the writer reached the write of the report");
    child.kill("SIGKILL");
    assert.equal(await exited, "SIGKILL");
    assert.equal(readFileSync(ws.path("out.sarif"), "utf8"), old, "the report is untouched");
    // Written again, the report is a new file: a hard link to the old one keeps the old text.
    linkSync(ws.path("out.sarif"), ws.path("old.sarif"));
    const ino = statSync(ws.path("out.sarif")).ino;
    const again = runCli(["verify", "--sarif", "out.sarif"], { cwd: ws.dir });
    assert.equal(again.code, 1, again.stderr);
    assert.notEqual(statSync(ws.path("out.sarif")).ino, ino);
    assert.equal(readFileSync(ws.path("old.sarif"), "utf8"), old);
    assert.match(readFileSync(ws.path("out.sarif"), "utf8"), /new_tool/);
  });
});

describe("writeReportAtomic", () => {
  it("refuses a link at the file or in a folder below a base, whatever was checked before; writes a new file otherwise", async () => {
    const ws = new Workspace();
    const outside = new Workspace();
    writeFileSync(outside.path("victim"), "precious\n");
    symlinkSync(outside.path("victim"), ws.path("r.sarif"));
    symlinkSync(outside.dir, ws.path("dir"));
    for (const path of [ws.path("r.sarif"), ws.path("dir/new.sarif")]) {
      await assert.rejects(writeReportAtomic(path, "x", "the report", [ws.dir]), (err) => {
        assert.ok(isContractpinError(err, "REPORT_WRITE_FAILED"));
        assert.match(err.message, /is a symbolic link/);
        return true;
      });
    }
    assert.deepEqual(readdirSync(outside.dir), ["victim"]);
    assert.equal(readFileSync(outside.path("victim"), "utf8"), "precious\n");
    await writeReportAtomic(ws.path("ok.sarif"), "ok\n", "the report", [ws.dir]);
    assert.equal(readFileSync(ws.path("ok.sarif"), "utf8"), "ok\n");
  });

  it("a link planted at the file after the check is replaced by the rename, never followed; the mode asked for is kept", async () => {
    const ws = new Workspace();
    const outside = new Workspace();
    writeFileSync(outside.path("victim"), "precious\n", { mode: 0o644 });
    const path = ws.path("state.env");
    // Real operations, but the link appears between the check and the rename.
    const racing: AtomicWriteOps = {
      async writeNew(temp, data, mode) {
        writeFileSync(temp, data, { flag: "wx", mode });
        symlinkSync(outside.path("victim"), path);
      },
      rename: async (from, to) => renameSync(from, to),
      unlink: async (p) => unlinkSync(p),
      async syncDir() {},
    };
    await writeReportAtomic(path, "TOKEN=new\n", "the OAuth state file", [ws.dir], {
      mode: 0o600,
      ops: racing,
    });
    assert.equal(readFileSync(outside.path("victim"), "utf8"), "precious\n");
    assert.equal(lstatSync(path).isSymbolicLink(), false);
    assert.equal(readFileSync(path, "utf8"), "TOKEN=new\n");
    assert.equal(statSync(path).mode & 0o777, 0o600);
  });

  it("a link at the temporary name makes the write fail (O_EXCL); its destination is not written", async (t) => {
    const ws = new Workspace();
    const outside = new Workspace();
    writeFileSync(outside.path("victim"), "precious\n");
    const now = 1_700_000_000_000;
    t.mock.method(Date, "now", () => now);
    const temp = ws.path(`.dump.json.${process.pid}.${now.toString(36)}.tmp`);
    symlinkSync(outside.path("victim"), temp);
    await assert.rejects(
      writeReportAtomic(ws.path("dump.json"), "[]\n", "the dump", [ws.dir]),
      (err) => isContractpinError(err, "REPORT_WRITE_FAILED"),
    );
    assert.equal(readFileSync(outside.path("victim"), "utf8"), "precious\n");
    assert.equal(existsSync(ws.path("dump.json")), false);
  });
});
