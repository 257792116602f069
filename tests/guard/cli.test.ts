// contractpin guard's command line: arguments, and secrets kept out of what
// the client and stderr are told.
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { oneLine, runCli } from "../helpers/cli.js";
import { assert, fakeSetup, RawClient } from "./guard-harness.js";

describe("contractpin guard arguments", () => {
  it("needs a server name", () => {
    const r = runCli(["guard"]);
    assert.equal(r.code, 2);
    assert.equal(
      r.stderr,
      "contractpin: guard needs the name of a server in the lock (see 'contractpin guard --help')\n",
    );
  });

  it("takes withhold, block or graded for --on-drift", () => {
    const r = runCli(["guard", "x", "--on-drift=warn"]);
    assert.equal(r.code, 2);
    assert.equal(
      r.stderr,
      "contractpin: --on-drift takes withhold, block or graded, not 'warn' (see 'contractpin guard --help')\n",
    );
  });

  it("takes --withhold-at only with --on-drift=graded, and a severity", () => {
    const alone = runCli(["guard", "x", "--withhold-at", "low"]);
    assert.equal(alone.code, 2);
    assert.equal(
      alone.stderr,
      "contractpin: --withhold-at needs --on-drift=graded (see 'contractpin guard --help')\n",
    );
    const bad = runCli(["guard", "x", "--on-drift=graded", "--withhold-at", "severe"]);
    assert.equal(bad.code, 2);
    assert.equal(
      bad.stderr,
      "contractpin: --withhold-at takes critical, high, medium or low, not \"severe\" (see 'contractpin guard --help')\n",
    );
  });

  it("says in one line when the --log file cannot be opened", () => {
    const { dir, lock } = fakeSetup();
    const r = runCli(["guard", "fake", "--lock", lock, "--log", join(dir, "no/such/dir.log")]);
    assert.equal(r.code, 2);
    assert.ok(oneLine(r.stderr), r.stderr);
    assert.match(
      r.stderr,
      /^contractpin: --log .*no\/such\/dir\.log: cannot open the file: ENOENT\n$/,
    );
  });

  it("never appends to the --log file through a symbolic link: exit 2, one line, the file outside untouched", () => {
    const { dir, lock } = fakeSetup();
    const outside = mkdtempSync(join(tmpdir(), "contractpin-outside-"));
    try {
      writeFileSync(join(outside, ".bashrc"), "export A=1\n");
      symlinkSync(join(outside, ".bashrc"), join(dir, "guard.jsonl"));
      const r = runCli(["guard", "fake", "--lock", lock, "--log", "guard.jsonl"], { cwd: dir });
      assert.equal(r.code, 2, r.stderr);
      assert.ok(oneLine(r.stderr), r.stderr);
      assert.equal(
        r.stderr,
        "contractpin: guard.jsonl: cannot write the guard's log: it is a symbolic link, and contractpin does not write through one; nothing was written (remove the link, or give another path)\n",
      );
      assert.equal(readFileSync(join(outside, ".bashrc"), "utf8"), "export A=1\n");
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it("is listed in the help", () => {
    assert.match(runCli(["--help"]).stdout, /\n {2}guard {9}serve one pinned server/);
  });
});

describe("contractpin guard keeps expanded variables secret", () => {
  it("shows a command that cannot be started with its ${VAR}, to the client and on stderr", async () => {
    const { dir, lock } = fakeSetup();
    const text = readFileSync(lock, "utf8").replace(
      JSON.stringify(process.execPath),
      '"${GUARD_SECRET_CMD}"',
    );
    writeFileSync(lock, text);
    const secret = join(dir, "s3cr3t-value-never-shown");
    const client = new RawClient(["fake", "--lock", lock], { GUARD_SECRET_CMD: secret });
    const reply = await client.request(0, "initialize", {});
    assert.match(reply.error.message, /could not start "\$\{GUARD_SECRET_CMD\}"/);
    assert.equal((await client.close()).code, 1);
    assert.ok(!JSON.stringify(reply).includes("s3cr3t"));
    assert.ok(!client.stderr.includes("s3cr3t"), client.stderr);
    assert.match(client.stderr, /could not start "\$\{GUARD_SECRET_CMD\}"/);
  });
});

describe("contractpin guard starts light", () => {
  it("guards a stdio server without loading the MCP client library (HTTP and OAuth load it)", async () => {
    const { dir, lock } = fakeSetup();
    // Says on stderr whenever the library is loaded, in any process that preloads it.
    const preload = join(dir, "watch-require.cjs");
    writeFileSync(
      preload,
      `const M = require("node:module");
const load = M._load;
M._load = function (request, ...rest) {
  if (String(request).startsWith("@modelcontextprotocol/")) process.stderr.write("LOADED " + request + "\\n");
  return load.call(this, request, ...rest);
};
`,
    );
    const client = new RawClient(["fake", "--lock", lock], {
      NODE_OPTIONS: `--require ${JSON.stringify(preload)}`,
    });
    const init = await client.request(0, "initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "t", version: "1" },
    });
    assert.ok(init.result !== undefined, client.stderr);
    const list = await client.request(1, "tools/list", {});
    assert.ok(list.result.tools.length > 0, client.stderr);
    assert.equal((await client.close()).code, 0);
    assert.doesNotMatch(client.stderr, /LOADED/);
  });
});
