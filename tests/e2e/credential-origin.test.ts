// Issue 15, "a credential goes only where it belongs": the lock's headers
// (expanded ${VAR} secrets) reach the pinned origin and no other. A server
// that redirects to another origin (another host, another port) gets the
// request refused before anything is sent there; a redirect within the origin
// is followed with the headers. verify and the guard alike, through the built CLI.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";
import { killAtEnd, tempDir } from "../helpers/cleanup.js";
import { pythonDigest, runCli } from "../helpers/cli.js";
import { RawClient } from "../guard/guard-harness.js";

const FIXTURES = new URL("../fixtures/servers/", import.meta.url);
const REDIRECTING = fileURLToPath(new URL("redirect-http-server.mjs", FIXTURES));
const TOOLS = fileURLToPath(new URL("tools.json", FIXTURES));
// Shaped like a real key, and unlike anything contractpin prints on its own.
const KEY = "sk-live-Rv3WqP8mL2xT6zK9nB4cH7";

interface Hit {
  port: number;
  method: string;
  url: string;
  headers: Record<string, string>;
}

/** Starts the redirecting fixture; its two ports and the requests each one saw. */
async function start(dir: string): Promise<{ port: number; other: number; hits: () => Hit[] }> {
  const report = join(dir, "requests.jsonl");
  writeFileSync(report, "");
  const child = spawn(process.execPath, [REDIRECTING, report], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  killAtEnd(child);
  const [port, other] = await new Promise<[number, number]>((resolve, reject) => {
    child.stdout.once("data", (d: Buffer) => {
      const m = /listening on (\d+) (\d+)/.exec(d.toString())!;
      resolve([Number(m[1]), Number(m[2])]);
    });
    child.once("exit", () => reject(new Error("the redirecting server exited")));
  });
  const hits = () =>
    readFileSync(report, "utf8")
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as Hit);
  return { port, other, hits };
}

/** A lock pinning the fixture tools for server `s` at `url`, with an API key header. */
function lock(dir: string, url: string): string {
  const path = join(dir, "contractpin.lock");
  const dump = join(dir, "tools.json");
  writeFileSync(dump, JSON.stringify({ tools: JSON.parse(readFileSync(TOOLS, "utf8")) }));
  writeFileSync(
    path,
    JSON.stringify({
      contractpin: "1",
      algorithm: "sha256",
      canonicalization: "contractpin-canonical-json/1",
      generated_at: "2026-12-01T00:00:00Z",
      servers: {
        s: {
          transport: "http",
          url,
          headers: { "X-Api-Key": "${API_KEY}" },
          ...(pythonDigest(dump) as object),
        },
      },
    }),
  );
  return path;
}

const env = { API_KEY: KEY };

describe("verify sends the lock's headers to the pinned origin only", () => {
  for (const [path, what] of [
    ["/cross", "another host"],
    ["/port", "another port"],
  ] as const) {
    it(`refuses a redirect to ${what}, and nothing reaches it`, async () => {
      const dir = tempDir();
      const server = await start(dir);
      const r = runCli(["verify", "--lock", lock(dir, `http://127.0.0.1:${server.port}${path}`)], {
        env,
      });
      assert.equal(r.code, 1, r.stderr);
      const host = path === "/cross" ? "localhost" : "127.0.0.1";
      assert.ok(
        r.stdout.includes(
          `the server redirected to another origin (http://${host}:${server.other}); contractpin ` +
            `follows redirects only within http://127.0.0.1:${server.port}, so nothing was sent there`,
        ),
        r.stdout,
      );
      assert.deepEqual(
        server.hits().filter((h) => h.port === server.other),
        [],
      );
      // The pinned origin itself got the key: the header was configured and sent.
      assert.ok(
        server.hits().some((h) => h.port === server.port && h.headers["x-api-key"] === KEY),
      );
      assert.ok(!(r.stdout + r.stderr).includes(KEY));
    });
  }

  it("follows a redirect within the origin, with the headers", async () => {
    const dir = tempDir();
    const server = await start(dir);
    const r = runCli(["verify", "--lock", lock(dir, `http://127.0.0.1:${server.port}/same`)], {
      env,
    });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const listed = server
      .hits()
      .filter((h) => h.url === "/mcp" && h.method === "POST" && h.headers["x-api-key"] === KEY);
    assert.ok(listed.length > 0, JSON.stringify(server.hits()));
  });

  it("gives up after five redirects", async () => {
    const dir = tempDir();
    const server = await start(dir);
    const r = runCli(["verify", "--lock", lock(dir, `http://127.0.0.1:${server.port}/loop`)], {
      env,
    });
    assert.equal(r.code, 1, r.stderr);
    assert.ok(r.stdout.includes("the server redirected more than 5 times"), r.stdout);
  });
});

describe("verify --allow-env VAR=ORIGIN", () => {
  it("sends a bound variable to its origin", async () => {
    const dir = tempDir();
    const server = await start(dir);
    const origin = `http://127.0.0.1:${server.port}`;
    const path = lock(dir, `${origin}/mcp`);
    const flag = runCli(["verify", "--lock", path, "--allow-env", `API_KEY=${origin}`], { env });
    assert.equal(flag.code, 0, flag.stdout + flag.stderr);
    const variable = runCli(["verify", "--lock", path], {
      env: { ...env, CONTRACTPIN_ALLOW_ENV: `OTHER,API_KEY=${origin}/` },
    });
    assert.equal(variable.code, 0, variable.stdout + variable.stderr);
  });

  it("contacts nothing when the lock's URL is at another origin", async () => {
    const dir = tempDir();
    const server = await start(dir);
    const path = lock(dir, `http://127.0.0.1:${server.port}/mcp`);
    const r = runCli(["verify", "--lock", path, "--allow-env", "API_KEY=https://mcp.example.com"], {
      env,
    });
    assert.equal(r.code, 1, r.stderr);
    assert.ok(
      r.stdout.includes(
        `server s would send \${API_KEY} to http://127.0.0.1:${server.port}, but --allow-env ` +
          "(or CONTRACTPIN_ALLOW_ENV) binds it to https://mcp.example.com; it was not contacted",
      ),
      r.stdout,
    );
    assert.deepEqual(server.hits(), []);
    assert.ok(!(r.stdout + r.stderr).includes(KEY));
  });

  it("refuses a malformed binding with exit 2, without echoing it", () => {
    const path = lock(tempDir(), "http://127.0.0.1:9/mcp");
    const r = runCli(["verify", "--lock", path, "--allow-env", `API_KEY=${KEY}`], { env });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^contractpin: --allow-env takes variable names .* entry 1 is not one/);
    assert.ok(!r.stderr.includes(KEY));
  });
});

describe("the guard sends the lock's headers to the pinned origin only", () => {
  it("answers the client with an error when the server redirects to another origin", async () => {
    const dir = tempDir();
    const server = await start(dir);
    const path = lock(dir, `http://127.0.0.1:${server.port}/cross`);
    const client = new RawClient(["s", "--lock", path], env);
    const init = await client.request(0, "initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "x", version: "1" },
    });
    assert.equal(init.error.code, -32603);
    assert.match(init.error.message, /redirected to another origin \(http:\/\/localhost:\d+\)/);
    assert.equal((await client.close()).code, 0);
    assert.deepEqual(
      server.hits().filter((h) => h.port === server.other),
      [],
    );
    assert.ok(!client.stderr.includes(KEY));
  });
});
