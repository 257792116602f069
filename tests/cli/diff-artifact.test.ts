// contractpin diff between two locks that record artifacts (SPEC.md 11.3):
// the same version recorded with other contents is artifact-changed.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { runCli } from "../helpers/cli.js";
import { Workspace } from "../helpers/workspace.js";

const D1 = `sha256:${"1".repeat(64)}`;
const D2 = `sha256:${"2".repeat(64)}`;
const imageArtifact = { kind: "image", image: "ghcr.io/acme/files", tag: "1.0", digest: D1 };

describe("contractpin diff of two locks", () => {
  /** A lock pinning one tool from a dump, then given this command and artifact (format 3). */
  function lockWith(ws: Workspace, file: string, command: string[], artifact: object): string {
    const lock = ws.lockJson();
    const { path: _p, ...pinned } = lock.servers["img"]!;
    lock.contractpin = "3";
    lock.servers["img"] = { ...pinned, transport: "stdio", command, artifact };
    ws.write(file, JSON.stringify(lock, null, 2));
    return file;
  }

  it("names the same version recorded with other contents, at critical; a new version's artifact is no finding", () => {
    const ws = new Workspace();
    ws.dump("tools.json", [{ name: "echo", inputSchema: { type: "object" } }]);
    assert.equal(runCli(["add", "img", "--file", "tools.json"], { cwd: ws.dir }).code, 0);
    const run = (tag: string) => ["docker", "run", "-i", `ghcr.io/acme/files:${tag}`];
    const old = lockWith(ws, "old.lock", run("1.0"), imageArtifact);
    const repushed = lockWith(ws, "new.lock", run("1.0"), { ...imageArtifact, digest: D2 });
    const r = runCli(["diff", old, repushed], { cwd: ws.dir });
    assert.equal(r.code, 1, r.stderr);
    assert.match(
      r.stdout,
      new RegExp(`^  \\[critical\\] artifact-changed at artifact/digest: "${D1}" -> "${D2}"$`, "m"),
    );
    const upgraded = lockWith(ws, "up.lock", run("1.1"), {
      ...imageArtifact,
      tag: "1.1",
      digest: D2,
    });
    const u = runCli(["diff", old, upgraded], { cwd: ws.dir });
    assert.equal(u.code, 1, u.stderr);
    assert.doesNotMatch(u.stdout, /artifact-changed/);
    assert.match(u.stdout, /server-source-changed/);
  });
});
