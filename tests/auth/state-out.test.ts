import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { writeOAuthState } from "../../src/auth/state-out.js";
import { isContractpinError } from "../../src/core/errors.js";
import { tempDir } from "../helpers/cleanup.js";

/** Runs `work` with GITHUB_WORKSPACE set to `dir`, as under GitHub Actions. */
async function inWorkspace(dir: string, work: () => Promise<void>): Promise<void> {
  const before = process.env["GITHUB_WORKSPACE"];
  process.env["GITHUB_WORKSPACE"] = dir;
  try {
    await work();
  } finally {
    if (before === undefined) delete process.env["GITHUB_WORKSPACE"];
    else process.env["GITHUB_WORKSPACE"] = before;
  }
}

const refused = (err: unknown) => {
  assert.ok(isContractpinError(err, "AUTH_FAILED"));
  assert.match(err.message, /is a symbolic link|it is not a regular file/);
  assert.doesNotMatch(err.message, /s3cret/);
  return true;
};

describe("--oauth-state-out", () => {
  it("writes NAME=value with mode 0600, keeping the other lines", async () => {
    const dir = tempDir();
    const file = join(dir, "oauth.env");
    writeFileSync(file, "OTHER=1\nMCP_REFRESH=old\n", { mode: 0o644 });
    await writeOAuthState(file, "MCP_REFRESH", "s3cret");
    assert.equal(readFileSync(file, "utf8"), "OTHER=1\nMCP_REFRESH=s3cret\n");
    assert.equal(statSync(file).mode & 0o777, 0o600);
  });

  it("never writes the token through a symbolic link: at the file, or at a folder of its path in the checkout", async () => {
    const dir = tempDir();
    const victim = tempDir();
    writeFileSync(join(victim, "target"), "precious\n");
    symlinkSync(join(victim, "target"), join(dir, "oauth.env"));
    symlinkSync(victim, join(dir, "state"));
    await inWorkspace(dir, async () => {
      for (const file of [join(dir, "oauth.env"), join(dir, "state", "oauth.env")]) {
        await assert.rejects(writeOAuthState(file, "MCP_REFRESH", "s3cret"), refused);
      }
    });
    assert.equal(readFileSync(join(victim, "target"), "utf8"), "precious\n");
    assert.deepEqual(readdirSync(victim), ["target"]);
  });
});
