// The legacy HTTP+SSE transport (MCP 2024-11-05), which contractpin falls back
// to when a Streamable HTTP POST is refused: a real server built with the
// official SDK's SSEServerTransport, and a fake one, each read only through
// that fallback, with digests equal to the Python generator's of the raw
// tools/list response the server sent.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, describe, it } from "node:test";
import { pythonDigest, runCli } from "../helpers/cli.js";
import { SERVERS, startHttpScript, type Running } from "../helpers/servers.js";
import { Workspace } from "../helpers/workspace.js";

const servers: Running[] = [];
after(async () => {
  await Promise.all(servers.map((s) => s.stop()));
});

interface Request {
  method: string;
  url: string;
}

describe("legacy HTTP+SSE fallback", () => {
  it("a real SDK server with only SSEServerTransport: add and verify exit 0, digests equal Python's of the raw response", async () => {
    const ws = new Workspace();
    const raw = ws.path("raw-tools-list.json");
    const server = await startHttpScript(SERVERS.sdkSse, [raw], "/sse");
    servers.push(server);
    const add = runCli(["add", "legacy", "--tools-only", "--url", server.url], { cwd: ws.dir });
    assert.equal(add.code, 0, add.stderr);
    assert.match(add.stdout, /^pinned legacy \(http .*\/sse\): 4 tools, sha256:/);
    const expected = pythonDigest(raw) as Record<string, unknown>;
    const pinned = ws.lockJson().servers["legacy"]!;
    assert.deepEqual(
      { tool_count: pinned["tool_count"], digest: pinned["digest"], tools: pinned["tools"] },
      expected,
    );
    // The same tools as a plain dump of tools.json: the SDK served them unchanged.
    const dump = ws.write(
      "tools.json",
      readFileSync(new URL("../fixtures/servers/tools.json", import.meta.url)),
    );
    ws.write("result.json", `{"tools":${readFileSync(dump, "utf8")}}`);
    assert.deepEqual(pythonDigest(ws.path("result.json")), expected);
    const verify = runCli(["verify"], { cwd: ws.dir });
    assert.equal(verify.code, 0, verify.stdout + verify.stderr);
    assert.match(verify.stdout, /OK: 1 server matches the lock/);
  });

  it("a fake SSE-only server: the POST is refused (405), the fallback GETs the stream and POSTs to its endpoint; digests equal Python's", async () => {
    const ws = new Workspace();
    const report = ws.path("requests.jsonl");
    const server = await startHttpScript(SERVERS.recordingHttp, ["sse-only", report]);
    servers.push(server);
    const add = runCli(["add", "legacy", "--tools-only", "--url", server.url], { cwd: ws.dir });
    assert.equal(add.code, 0, add.stderr);
    const requests = readFileSync(report, "utf8")
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as Request);
    const seen = requests.map(
      (r) => `${r.method} ${r.url.replace(/sessionId=\d+/, "sessionId=N")}`,
    );
    // First the Streamable HTTP attempt, then the legacy transport: its stream, then its endpoint.
    assert.equal(seen[0], "POST /mcp");
    assert.ok(seen.includes("GET /mcp"), seen.join(", "));
    assert.ok(seen.includes("POST /messages?sessionId=N"), seen.join(", "));
    assert.ok(
      seen.indexOf("GET /mcp") < seen.indexOf("POST /messages?sessionId=N"),
      seen.join(", "),
    );
    const pinned = ws.lockJson().servers["legacy"]!;
    assert.deepEqual(
      { tool_count: pinned["tool_count"], digest: pinned["digest"], tools: pinned["tools"] },
      pythonDigest(`${report}.tools-list.json`),
    );
    const verify = runCli(["verify"], { cwd: ws.dir });
    assert.equal(verify.code, 0, verify.stdout + verify.stderr);
  });
});
