import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { describe, it } from "node:test";
import { isContractpinError } from "../../src/core/errors.js";
import { validateLock } from "../../src/core/lock.js";
import { parseJson } from "../../src/core/strict-json.js";
import { writeFileAtomic, type AtomicWriteOps } from "../../src/io/lock-file.js";
import { CLI, runCli } from "../helpers/cli.js";
import { Workspace } from "../helpers/workspace.js";

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

  it("replaces the file when nothing fails", async () => {
    const ws = new Workspace();
    const path = ws.write("contractpin.lock", OLD);
    await writeFileAtomic(path, "new\n");
    assert.equal(readFileSync(path, "utf8"), "new\n");
    assert.deepEqual(readdirSync(ws.dir), ["contractpin.lock"]);
  });
});

describe("a writer killed mid-write", () => {
  it("never leaves a truncated lock: after every SIGKILL the lock is the old one or the new one", async () => {
    const ws = new Workspace();
    // A large server, so that writing its lock takes long enough to be killed during it.
    const tools = (variant: string) =>
      Array.from({ length: 6000 }, (_, i) => ({
        name: `tool_${i}`,
        description: `${variant} ${i}`,
        inputSchema: { type: "object" },
      }));
    writeFileSync(ws.path("big.json"), JSON.stringify({ tools: tools("a") }));
    assert.equal(runCli(["add", "big", "--file", "big.json"], { cwd: ws.dir }).code, 0);
    const versions = new Set([ws.read()]);
    let killedMidRun = 0;
    for (let round = 0; round < 12; round++) {
      writeFileSync(ws.path("big.json"), JSON.stringify({ tools: tools(round % 2 ? "a" : "b") }));
      const child = spawn(process.execPath, [CLI, "init", "--force"], {
        cwd: ws.dir,
        stdio: "ignore",
      });
      const delay = 40 + round * 25;
      const timer = setTimeout(() => child.kill("SIGKILL"), delay);
      const code = await new Promise<number | null>((resolve) =>
        child.on("exit", (c) => resolve(c)),
      );
      clearTimeout(timer);
      if (code === null) killedMidRun++;
      const text = ws.read();
      validateLock(parseJson(text)); // throws on a truncated or corrupt lock
      versions.add(text.replace(/"generated_at": "[^"]+"/, ""));
    }
    assert.ok(killedMidRun >= 3, `only ${killedMidRun} of 12 runs were killed before finishing`);
    assert.ok(versions.size >= 2, "some run completed and replaced the lock");
  });
});
