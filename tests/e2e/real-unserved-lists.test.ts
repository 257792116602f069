// Two official reference servers from npm that advertise resources and answer
// resources/templates/list with -32601 Method not found (MCP-FACTS, issue
// 34): @modelcontextprotocol/server-postgres 0.6.2 (started with an
// unreachable database URL: it lists tools without one) and
// @modelcontextprotocol/server-puppeteer 2025.5.12 (PUPPETEER_SKIP_DOWNLOAD=1,
// no browser is started to list). Real clients connect to both; contractpin
// pins them by default, whole, with their templates as not served. The
// expected pins come from the independent Python implementation over the
// servers' raw responses, read by the test's own client.
import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import { tempDir } from "../helpers/cleanup.js";
import { pythonDigest, runCli } from "../helpers/cli.js";
import { rawSurfaceDump, SERVERS } from "../helpers/servers.js";
import { Workspace } from "../helpers/workspace.js";
import { closedAfterFile, FACES } from "../guard/surface-faces.js";
import { allPages, officialClient, toolNames } from "../guard/guard-harness.js";

const connect = closedAfterFile();

const REAL = [
  {
    name: "postgres",
    argv: [process.execPath, SERVERS.postgres, "postgresql://127.0.0.1:9/unreachable"],
    env: {} as Record<string, string>,
  },
  {
    name: "puppeteer",
    argv: [process.execPath, SERVERS.puppeteer],
    env: { PUPPETEER_SKIP_DOWNLOAD: "1" } as Record<string, string>,
  },
];

for (const server of REAL) {
  describe(`${server.name}: advertises resources, answers resources/templates/list with -32601`, () => {
    const ws = new Workspace();
    const envArgs = Object.entries(server.env).flatMap(([k, v]) => ["--env", `${k}=${v}`]);

    it("pinned by default, whole: templates as not served, as the Python implementation pins its raw answers", () => {
      const add = runCli(["add", server.name, ...envArgs, "--", ...server.argv], { cwd: ws.dir });
      assert.equal(add.code, 0, add.stderr);
      const raw = rawSurfaceDump(
        server.argv,
        ["tools/list", "resources/templates/list"],
        server.env,
      );
      assert.match(raw, /"code":-32601/);
      const path = ws.write("raw.json", raw);
      const lock = JSON.parse(ws.read()) as {
        contractpin: string;
        servers: Record<string, Record<string, unknown>>;
      };
      assert.equal(lock.contractpin, "2");
      const { transport: _t, command: _c, env: _e, ...pinned } = lock.servers[server.name]!;
      assert.deepEqual(pinned, pythonDigest(path));
      assert.equal((pinned["surface"] as Record<string, unknown>)["resource_templates"], null);
      assert.ok((pinned["tool_count"] as number) > 0);
    });

    it("stable over restarts: --repeat 2 pins the same, and verify exits 0", () => {
      const again = runCli(["add", "again", "--repeat", "2", ...envArgs, "--", ...server.argv], {
        cwd: ws.dir,
      });
      assert.equal(again.code, 0, again.stderr);
      const servers = (JSON.parse(ws.read()) as { servers: Record<string, { digest: string }> })
        .servers;
      assert.equal(servers["again"]!.digest, servers[server.name]!.digest);
      const verify = runCli(["verify"], { cwd: ws.dir });
      assert.equal(verify.code, 0, verify.stdout + verify.stderr);
    });

    for (const face of FACES) {
      it(`through the guard (${face}), the official client sees its tools as served directly`, async () => {
        const lock = join(tempDir("contractpin-real-unserved-"), "contractpin.lock");
        const add = runCli([
          "add",
          server.name,
          "--lock",
          lock,
          "--no-snapshot",
          ...envArgs,
          "--",
          ...server.argv,
        ]);
        assert.equal(add.code, 0, add.stderr);
        const direct = await officialClient(server.argv, undefined, undefined, server.env);
        try {
          const guarded = await connect(face, [server.name, "--lock", lock]);
          const pages = await allPages(guarded.client);
          assert.ok(toolNames(pages).length > 0);
          assert.deepEqual(pages, await allPages(direct.client));
        } finally {
          await direct.client.close();
        }
      });
    }
  });
}
