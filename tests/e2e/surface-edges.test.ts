// The edges of reading a surface (issue 34), with hand-written servers over
// stdio and HTTP (tests/fixtures/servers/surface-edge.mjs): a list the server
// advertises but answers with -32601 Method not found is pinned as not served
// (null), never fatal; any other error names the method, the page and how to
// pin without that list; a server without the tools capability is pinned
// without asking tools/list. Expected digests come from the independent
// Python implementation over a dump of the same data written here by hand.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, describe, it } from "node:test";
import { pythonDigest, runCli } from "../helpers/cli.js";
import { SERVERS, startFakeHttp, type Running } from "../helpers/servers.js";
import { Workspace } from "../helpers/workspace.js";
import { listPages, officialClient } from "../guard/guard-harness.js";
import { closedAfterFile } from "../guard/surface-faces.js";

const connect = closedAfterFile();

const EDGE = JSON.parse(
  readFileSync(new URL("../fixtures/servers/surface-edge-data.json", import.meta.url), "utf8"),
) as Record<"tool" | "prompt" | "template" | "resource", object> & {
  init: Record<string, { capabilities?: Record<string, unknown> | null }>;
};

type Lock = { servers: Record<string, Record<string, unknown>> };

const notFound = (id: number) => ({
  jsonrpc: "2.0",
  id,
  error: { code: -32601, message: "Method not found" },
});

/** The server object the Python implementation pins for a surface dump written from `dump`. */
function expected(ws: Workspace, dump: object): Record<string, unknown> {
  const path = ws.write(
    `expected-${Math.random().toString(36).slice(2)}.json`,
    JSON.stringify(dump),
  );
  return pythonDigest(path) as Record<string, unknown>;
}

/** The pinned server `s` without its source members. */
function pinned(ws: Workspace): Record<string, unknown> {
  const lock = JSON.parse(ws.read()) as Lock;
  const { transport: _t, command: _c, url: _u, ...rest } = lock.servers["s"]!;
  return rest;
}

const http: Running[] = [];
after(async () => {
  for (const server of http) await server.stop();
});

/** `add s ARGS...` of the edge server in `mode` over `transport`. */
async function add(ws: Workspace, transport: "stdio" | "http", mode: string, args: string[] = []) {
  if (transport === "stdio")
    return runCli(["add", "s", ...args, "--", process.execPath, SERVERS.fakeStdio, mode], {
      cwd: ws.dir,
    });
  const server = await startFakeHttp(mode);
  http.push(server);
  return runCli(["add", "s", ...args, "--url", server.url], { cwd: ws.dir });
}

const caps = { tools: {}, resources: {} };

for (const transport of ["stdio", "http"] as const) {
  describe(`an advertised list the server does not implement (${transport})`, () => {
    it("resources/templates/list answered with -32601: pinned as not served (null), exit 0", async () => {
      const ws = new Workspace();
      const r = await add(ws, transport, "edge-templates-unimplemented");
      assert.equal(r.code, 0, r.stderr);
      const base = {
        "contractpin-dump": "2",
        initialize: { capabilities: caps },
        "tools/list": [{ tools: [EDGE.tool] }],
        "resources/templates/list": [notFound(3)],
      };
      assert.deepEqual(pinned(ws), expected(ws, base));
      assert.equal((pinned(ws)["surface"] as Record<string, unknown>)["resource_templates"], null);
      const v = runCli(["verify"], { cwd: ws.dir });
      assert.equal(v.code, 0, v.stdout + v.stderr);
      // --resources: the resources it does serve are pinned beside it.
      const ws2 = new Workspace();
      const r2 = await add(ws2, transport, "edge-templates-unimplemented", ["--resources"]);
      assert.equal(r2.code, 0, r2.stderr);
      assert.deepEqual(
        pinned(ws2),
        expected(ws2, { ...base, "resources/list": [{ resources: [EDGE.resource] }] }),
      );
    });

    it("any other error on an advertised list: exit 1, naming the method, the page and how to pin without it", async () => {
      const ws = new Workspace();
      const r = await add(ws, transport, "edge-templates-broken");
      assert.equal(r.code, 1, r.stderr);
      assert.match(
        r.stderr,
        /^contractpin: server s: resources\/templates\/list page 1: the server answered with a JSON-RPC error -32603: templates are broken; --tools-only pins the server on its tools alone$/m,
      );
      const tools = await add(ws, transport, "edge-templates-broken", ["--tools-only"]);
      assert.equal(tools.code, 0, tools.stderr);
    });

    it("-32601 on a later page is a failure, not an empty list", async () => {
      const ws = new Workspace();
      const r = await add(ws, transport, "edge-templates-page2");
      assert.equal(r.code, 1, r.stderr);
      assert.match(
        r.stderr,
        /resources\/templates\/list page 2: the server answered with a JSON-RPC error -32601/,
      );
    });

    it("a server without the tools capability: tools/list is not asked, no tools pinned", async () => {
      const ws = new Workspace();
      const r = await add(ws, transport, "edge-prompts-only");
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(
        pinned(ws),
        expected(ws, {
          "contractpin-dump": "2",
          initialize: { capabilities: { prompts: {} } },
          "prompts/list": [{ prompts: [EDGE.prompt] }],
        }),
      );
      assert.equal(pinned(ws)["tool_count"], 0);
    });
  });
}

for (const transport of ["stdio", "http"] as const) {
  describe(`initialize results the MCP library's schema refuses are pinned as served (${transport})`, () => {
    for (const [mode, init] of Object.entries(EDGE.init)) {
      it(`${mode.replace("edge-init-", "")}: ${JSON.stringify(init)}`, async () => {
        const ws = new Workspace();
        const r = await add(ws, transport, mode);
        assert.equal(r.code, 0, r.stderr);
        // Advertised: present and not null (SPEC.md 10.1); a list not advertised is not asked.
        const caps = init.capabilities ?? {};
        const advertised = (name: string) => caps[name] !== undefined && caps[name] !== null;
        const dump: Record<string, unknown> = { "contractpin-dump": "2", initialize: init };
        if (advertised("tools")) dump["tools/list"] = [{ tools: [EDGE.tool] }];
        if (advertised("prompts")) dump["prompts/list"] = [{ prompts: [EDGE.prompt] }];
        assert.deepEqual(pinned(ws), expected(ws, dump));
      });
    }
  });
}

describe("a surface dump of these servers reads back to the same pin", () => {
  for (const mode of [
    "edge-templates-unimplemented",
    "edge-prompts-only",
    "edge-init-instructions-object",
    "edge-init-capabilities-null",
    "edge-init-capability-false",
  ]) {
    it(`${mode}: dump --surface, then digest and add --file give the live digest`, () => {
      const ws = new Workspace();
      const argv = ["--", process.execPath, SERVERS.fakeStdio, mode];
      const live = runCli(["add", "s", ...argv], { cwd: ws.dir });
      assert.equal(live.code, 0, live.stderr);
      const dump = runCli(["dump", "--surface", ...argv], { cwd: ws.dir });
      assert.equal(dump.code, 0, dump.stderr);
      ws.write("dump.json", dump.stdout);
      const lock = JSON.parse(ws.read()) as Lock;
      const digest = lock.servers["s"]!["digest"] as string;
      assert.equal((pythonDigest(ws.path("dump.json")) as { digest: string }).digest, digest);
      const file = runCli(["add", "f", "--file", "dump.json"], { cwd: ws.dir });
      assert.equal(file.code, 0, file.stderr);
      assert.equal((JSON.parse(ws.read()) as Lock).servers["f"]!["digest"], digest);
    });
  }

  it("a tools/list dump (section 5) of a server without tools: a clear refusal, exit 1", () => {
    const ws = new Workspace();
    const r = runCli(["dump", "--", process.execPath, SERVERS.fakeStdio, "edge-prompts-only"], {
      cwd: ws.dir,
    });
    assert.equal(r.code, 1, r.stderr);
    assert.match(
      r.stderr,
      /does not advertise tools: it has no tools\/list pages to dump \(--surface dumps what it serves\)/,
    );
  });
});

describe("a list that starts being served is a change", () => {
  it("templates pinned as not served, then served: verify fails, naming the template added", () => {
    const ws = new Workspace();
    const state = ws.path("runs");
    const argv = ["--", process.execPath, SERVERS.fakeStdio, "edge-templates-later", state];
    const r = runCli(["add", "s", ...argv], { cwd: ws.dir });
    assert.equal(r.code, 0, r.stderr);
    assert.equal((pinned(ws)["surface"] as Record<string, unknown>)["resource_templates"], null);
    const v = runCli(["verify"], { cwd: ws.dir });
    assert.equal(v.code, 1, v.stdout + v.stderr);
    assert.match(v.stdout, /doc:\/\/\{id\}/);
  });

  it("through the guard, the official client is not given the template it then serves", async () => {
    const ws = new Workspace();
    const state = ws.path("runs");
    const argv = [process.execPath, SERVERS.fakeStdio, "edge-templates-later", state];
    const r = runCli(["add", "s", "--no-snapshot", "--", ...argv], { cwd: ws.dir });
    assert.equal(r.code, 0, r.stderr);
    const direct = await officialClient(argv);
    try {
      const served = (await listPages(direct.client, "resources/templates/list")) as {
        resourceTemplates: unknown[];
      }[];
      assert.deepEqual(served[0]!.resourceTemplates, [EDGE.template]);
    } finally {
      await direct.client.close();
    }
    const guarded = await connect("stdio", ["s", "--lock", ws.path("contractpin.lock")]);
    const pages = (await listPages(guarded.client, "resources/templates/list")) as {
      resourceTemplates: unknown[];
    }[];
    assert.deepEqual(
      pages.flatMap((p) => p.resourceTemplates),
      [],
    );
  });
});

describe("--resources means the same live and from a dump", () => {
  const argv = ["--", process.execPath, SERVERS.fakeStdio, "ok"];

  it("a server that does not advertise resources: live, its dump, digest and add --file pin one digest", () => {
    const ws = new Workspace();
    const live = runCli(["add", "s", "--resources", ...argv], { cwd: ws.dir });
    assert.equal(live.code, 0, live.stderr);
    const lock = JSON.parse(ws.read()) as Lock;
    const digest = lock.servers["s"]!["digest"] as string;
    assert.equal((lock.servers["s"]!["surface"] as Record<string, unknown>)["resources"], null);
    const dump = runCli(["dump", "--surface", "--resources", ...argv], { cwd: ws.dir });
    assert.equal(dump.code, 0, dump.stderr);
    ws.write("dump.json", dump.stdout);
    assert.equal((pythonDigest(ws.path("dump.json")) as { digest: string }).digest, digest);
    const digested = runCli(["digest", "--json", "dump.json"], { cwd: ws.dir });
    assert.equal(digested.code, 0, digested.stderr);
    assert.equal((JSON.parse(digested.stdout) as { digest: string }).digest, digest);
    // A dump written without --resources: add --file --resources pins them as a live read does.
    const plain = runCli(["dump", "--surface", ...argv], { cwd: ws.dir });
    ws.write("plain.json", plain.stdout);
    const file = runCli(["add", "f", "--file", "plain.json", "--resources"], { cwd: ws.dir });
    assert.equal(file.code, 0, file.stderr);
    assert.equal((JSON.parse(ws.read()) as Lock).servers["f"]!["digest"], digest);
  });

  it("add --file --resources of a dump without resources/list of a server that advertises them: refused", () => {
    const ws = new Workspace();
    const edge = ["--", process.execPath, SERVERS.fakeStdio, "edge-templates-unimplemented"];
    const plain = runCli(["dump", "--surface", ...edge], { cwd: ws.dir });
    assert.equal(plain.code, 0, plain.stderr);
    ws.write("plain.json", plain.stdout);
    const r = runCli(["add", "f", "--file", "plain.json", "--resources"], { cwd: ws.dir });
    assert.equal(r.code, 1, r.stdout);
    assert.match(
      r.stderr,
      /has no resources\/list pages, but the server advertises resources and they are asked for \(--resources\): dump it with --resources/,
    );
    assert.throws(() => ws.read(), /ENOENT/);
  });

  it("diff never says SAME over two different server digests (resources pinned on one side only)", () => {
    const ws = new Workspace();
    assert.equal(runCli(["add", "s", "--resources", ...argv], { cwd: ws.dir }).code, 0);
    const plain = runCli(["dump", "--surface", ...argv], { cwd: ws.dir });
    ws.write("plain.json", plain.stdout);
    const differ = runCli(["diff", "contractpin.lock", "plain.json"], { cwd: ws.dir });
    assert.equal(differ.code, 1, differ.stdout + differ.stderr);
    assert.match(differ.stdout, /^DIFFER/m);
    assert.match(differ.stderr, /resources are pinned on one side only \(--resources\)/);
    const full = runCli(["dump", "--surface", "--resources", ...argv], { cwd: ws.dir });
    ws.write("full.json", full.stdout);
    const same = runCli(["diff", "contractpin.lock", "full.json"], { cwd: ws.dir });
    assert.equal(same.code, 0, same.stdout + same.stderr);
    assert.match(same.stdout, /^SAME/m);
  });
});
