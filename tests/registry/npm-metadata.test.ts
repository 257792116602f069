import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { npmVersions } from "../../src/registry/npm.js";

// A registry that answers every package with the body below: real registries
// never send a duplicate key, so this fault needs a fake one.
let body = "";
let server: Server;
let registry = "";
const noConfig = { get: () => undefined, keys: () => [] };

before(async () => {
  server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(body);
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  registry = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
after(() => new Promise<void>((done) => server.close(() => done())));

const ask = () => npmVersions("pkg", noConfig, { registry, timeoutMs: 5000 });

test("metadata with a duplicate key is refused, not read as its last value", async () => {
  // JSON.parse takes the last "latest" (1.0.0); npm's reading may differ, so neither is trusted.
  body = '{"dist-tags":{"latest":"9.9.9","latest":"1.0.0"},"versions":{"1.0.0":{},"9.9.9":{}}}';
  await assert.rejects(ask, (err: Error) => {
    assert.match(err.message, /not strict JSON/);
    assert.match(err.message, /duplicate/i);
    return true;
  });
});

test("clean metadata gives its latest tag and its exact versions", async () => {
  body = '{"dist-tags":{"latest":"1.0.0"},"versions":{"1.0.0":{},"2.0.0-rc.1":{},"bad":{}}}';
  const found = await ask();
  assert.equal(found.latest, "1.0.0");
  assert.deepEqual(found.versions, ["1.0.0", "2.0.0-rc.1"]);
});

test("a 'latest' tag that names no listed version is the registry's fault, one line", async () => {
  for (const latest of ['"9.9.9"', '"not a version"', "7"]) {
    body = `{"dist-tags":{"latest":${latest}},"versions":{"1.0.0":{},"1.1.0":{}}}`;
    await assert.rejects(ask, (err: Error) => {
      assert.match(
        err.message,
        /'latest' tag of pkg names (9\.9\.9|a value), which is not a version it lists/,
      );
      assert.ok(!err.message.includes("\n"));
      return true;
    });
  }
  // Without a latest tag, npm takes the newest version; exactly, past 2^53.
  body = '{"versions":{"9007199254740992.0.1":{},"9007199254740993.0.0":{}}}';
  assert.equal((await ask()).latest, "9007199254740993.0.0");
});
