import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after, test, type TestContext } from "node:test";
import { ContractpinError } from "../../src/core/errors.js";
import { pythonVersions, type IndexPlan } from "../../src/registry/pypi.js";
import { fileVersion, htmlPageVersions, jsonPageVersions } from "../../src/registry/simple-api.js";
import { cleanUp } from "../helpers/cleanup.js";
import { buildTree, pipIndexVersions, PY_PKG, serveTree } from "../helpers/python-index.js";
import { closedRegistry } from "../helpers/registry.js";

after(() => cleanUp());

const RELEASES = [
  { version: "1.0.0", tools: "1.0.0" },
  { version: "1.1.0", tools: "1.1.0" },
  { version: "1.2.0", tools: "1.1.0", yanked: true },
  { version: "2.0.0rc1", tools: "1.1.0" },
];
const first = (url: string): IndexPlan => ({ indexes: [url], strategy: "first" });
const opts = { timeoutMs: 5000 };

for (const json of [false, true]) {
  test(`${json ? "PEP 691 JSON" : "PEP 503 HTML"} tree on python3 http.server: the same versions and latest as the real pip`, async () => {
    const index = await serveTree(buildTree(RELEASES, json), json);
    // The name as a user may spell it: normalised (PEP 503) in the URL.
    const ours = await pythonVersions("Contractpin_Fixture.Py", first(index.url), opts);
    const pip = pipIndexVersions(index.url);
    assert.equal(ours.latest, pip.latest);
    assert.equal(ours.latest, "1.1.0");
    // pip lists no pre-release without --pre, and never the yanked 1.2.0.
    const finals = ours.versions.filter((v) => !/rc/.test(v));
    assert.deepEqual([...finals].sort(), [...pip.versions].sort());
    assert.deepEqual(ours.versions.sort(), ["1.0.0", "1.1.0", "2.0.0rc1"]);
    // With pre-releases allowed (pip's --pre), the same again, 2.0.0rc1 the newest.
    const pre = await pythonVersions(PY_PKG, { ...first(index.url), pre: true }, opts);
    const pipPre = pipIndexVersions(index.url, true);
    assert.equal(pre.latest, pipPre.latest);
    assert.equal(pre.latest, "2.0.0rc1");
    assert.deepEqual([...pre.versions].sort(), [...pipPre.versions].sort());
    assert.equal(ours.registry, index.url);
    index.stop();
  });
}

test("file names: wheels, legacy dashed sdists, other projects and non-PEP 440 versions", () => {
  assert.equal(fileVersion("contractpin_fixture_py-1.0-py3-none-any.whl", PY_PKG), "1.0");
  assert.equal(fileVersion("contractpin_fixture_py-1.0-1-py3-none-any.whl", PY_PKG), "1.0");
  assert.equal(fileVersion("contractpin-fixture-py-2.0.0.tar.gz", PY_PKG), "2.0.0");
  assert.equal(fileVersion("Contractpin.Fixture_py-2.0.0rc1.zip", PY_PKG), "2.0.0rc1");
  assert.equal(fileVersion("contractpin-fixture-py-extra-2.0.0.tar.gz", PY_PKG), undefined);
  assert.equal(fileVersion("other-1.0-py3-none-any.whl", PY_PKG), undefined);
  assert.equal(fileVersion("contractpin-fixture-py-latest.tar.gz", PY_PKG), undefined);
  assert.equal(fileVersion("contractpin_fixture_py-1.0-py3.7.egg", PY_PKG), undefined);
});

test("PEP 691 JSON: PEP 700's versions bound the files; a yanked file (true or a reason) offers nothing", async () => {
  const page = (extra: Record<string, unknown>) =>
    Buffer.from(
      JSON.stringify({
        meta: { "api-version": "1.1" },
        name: PY_PKG,
        files: [
          { filename: "contractpin_fixture_py-1.0-py3-none-any.whl", url: "a", hashes: {} },
          { filename: "contractpin_fixture_py-1.1-py3-none-any.whl", url: "b", hashes: {} },
          { filename: "contractpin-fixture-py-1.2.tar.gz", url: "c", hashes: {}, yanked: true },
          { filename: "contractpin-fixture-py-1.3.tar.gz", url: "d", hashes: {}, yanked: "bad" },
          { filename: "contractpin-fixture-py-1.4.tar.gz", url: "e", hashes: {}, yanked: false },
        ],
        ...extra,
      }),
    );
  assert.deepEqual((await jsonPageVersions(page({}), PY_PKG)).sort(), ["1.0", "1.1", "1.4"]);
  assert.deepEqual(await jsonPageVersions(page({ versions: ["1.0", "1.2"] }), PY_PKG), ["1.0"]);
  await assert.rejects(
    jsonPageVersions(page({ versions: "1.0" }), PY_PKG),
    /not a list of strings/,
  );
});

test("PEP 503 HTML: a raw '>' in a quoted attribute does not hide the data-yanked after it", async () => {
  const html = [
    `<a href="/f/contractpin_fixture_py-2.0-py3-none-any.whl#sha256=00" data-requires-python=">=3.8" data-yanked="">w</a>`,
    `<A HREF='https://h/f/contractpin-fixture-py-1.0.tar.gz?x=1' data-requires-python="&gt;=3.8">s</A>`,
    `<a href="contractpin%5Ffixture%5Fpy-1.5-py3-none-any.whl" data-yanked>y</a>`,
    `<a name="no-href">x</a>`,
  ].join("\n");
  assert.deepEqual(await htmlPageVersions(html, PY_PKG), ["1.0"]);
});

/**
 * A loopback HTTP server for the faults a real index does not make on demand,
 * closed when the test `t` ends, also when an assertion failed first.
 */
async function faulty(
  t: TestContext,
  handle: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ url: string; seen: IncomingMessage[] }> {
  const seen: IncomingMessage[] = [];
  const server = createServer((req, res) => {
    seen.push(req);
    handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/simple/`, seen };
}

async function failure(plan: IndexPlan, timeoutMs = 5000): Promise<string> {
  try {
    await pythonVersions(PY_PKG, plan, { timeoutMs });
  } catch (err) {
    assert.ok(err instanceof ContractpinError);
    assert.equal(err.code, "REGISTRY_UNREACHABLE");
    assert.ok(!err.message.includes("\n"));
    return err.message;
  }
  assert.fail("no failure");
}

test("404: has no package; with `first`, the next index answers", async (t) => {
  const missing = await faulty(t, (_q, r) => r.writeHead(404).end("Not Found"));
  const real = await serveTree(buildTree(RELEASES.slice(0, 2)));
  assert.equal(await failure(first(missing.url)), `index ${missing.url}: has no package ${PY_PKG}`);
  const found = await pythonVersions(
    PY_PKG,
    { indexes: [missing.url, real.url], strategy: "first" },
    opts,
  );
  assert.equal(found.latest, "1.1.0");
  assert.equal(found.registry, real.url);
});

test("first-index: the first index that has the project wins; all: the highest of every index", async () => {
  const old = await serveTree(buildTree(RELEASES.slice(0, 1)));
  const fresh = await serveTree(buildTree(RELEASES.slice(0, 2)));
  const plan = { indexes: [old.url, fresh.url] };
  assert.equal(
    (await pythonVersions(PY_PKG, { ...plan, strategy: "first" }, opts)).latest,
    "1.0.0",
  );
  assert.equal((await pythonVersions(PY_PKG, { ...plan, strategy: "all" }, opts)).latest, "1.1.0");
});

test("401/403 with and without a credential; the credential is sent, never shown", async (t) => {
  const index = await faulty(t, (_q, r) => r.writeHead(401).end());
  const noCred = await failure(first(index.url));
  assert.match(noCred, /refused contractpin-fixture-py \(HTTP 401\); no credential for it/);
  const withCred = index.url.replace("http://", "http://alice:s3cr%40t@");
  const msg = await failure(first(withCred));
  assert.match(msg, /HTTP 401\); the credential for it was refused/);
  assert.ok(!msg.includes("s3cr") && !msg.includes("alice"), msg);
  const sent = index.seen.at(-1)!.headers.authorization;
  assert.equal(sent, `Basic ${Buffer.from("alice:s3cr@t").toString("base64")}`);
  const malformed = await failure(first(index.url.replace("http://", "http://alice:50%zz@")));
  assert.match(malformed, /has a credential in its URL that is not percent-encoded$/);
  assert.ok(!malformed.includes("50%zz"), malformed);
  // .netrc gives the credential when the URL has none.
  await failure({ ...first(index.url), netrc: "machine 127.0.0.1 login bob password hunter2\n" });
  assert.equal(
    index.seen.at(-1)!.headers.authorization,
    `Basic ${Buffer.from("bob:hunter2").toString("base64")}`,
  );
});

test("redirects: followed within the origin with the credential, never carrying it elsewhere; loops end", async (t) => {
  const target = await serveTree(buildTree(RELEASES.slice(0, 2)));
  const hop = await faulty(t, (_q, r) =>
    r.writeHead(301, { location: `${target.url}${PY_PKG}/` }).end(),
  );
  assert.equal(
    (await pythonVersions(PY_PKG, first(hop.url.replace("http://", "http://u:p@")), opts)).latest,
    "1.1.0",
  );
  const elsewhere = await faulty(t, (_q, r) => r.writeHead(404).end());
  const away = await faulty(t, (_q, r) => r.writeHead(307, { location: elsewhere.url }).end());
  await failure(first(away.url.replace("http://", "http://u:p@")));
  assert.equal(
    away.seen[0]!.headers.authorization,
    `Basic ${Buffer.from("u:p").toString("base64")}`,
  );
  assert.equal(elsewhere.seen[0]!.headers.authorization, undefined);
  const loop = await faulty(t, (q, r) => r.writeHead(302, { location: q.url! }).end());
  assert.match(
    await failure(first(loop.url)),
    /redirected contractpin-fixture-py more than 5 times$/,
  );
  const nowhere = await faulty(t, (_q, r) => r.writeHead(302).end());
  assert.match(
    await failure(first(nowhere.url)),
    /redirected contractpin-fixture-py without a Location$/,
  );
});

test("unreachable, silent, oversize, not a page, other HTTP errors: one line each", async (t) => {
  const down = await closedRegistry();
  assert.equal(await failure(first(down)), `index ${down}: ECONNREFUSED`);
  const silent = await faulty(t, () => undefined);
  assert.equal(
    await failure(first(silent.url), 300),
    `index ${silent.url}: no answer within 0.3 s`,
  );
  const huge = await faulty(t, (_q, r) => {
    r.writeHead(200, { "content-type": "text/html" });
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    for (let i = 0; i < 33; i++) r.write(chunk);
    r.end();
  });
  assert.match(
    await failure(first(huge.url)),
    /the page of contractpin-fixture-py is over 32 MiB$/,
  );
  const junk = await faulty(t, (_q, r) =>
    r.writeHead(200, { "content-type": "application/vnd.pypi.simple.v1+json" }).end('{"files": 1}'),
  );
  assert.match(await failure(first(junk.url)), /not a Simple API page \(no 'files' list\)$/);
  const dup = await faulty(t, (_q, r) =>
    r
      .writeHead(200, { "content-type": "application/vnd.pypi.simple.v1+json" })
      .end('{"files": [], "files": []}'),
  );
  assert.match(await failure(first(dup.url)), /not a Simple API page/);
  const empty = await faulty(t, (_q, r) =>
    r.writeHead(200, { "content-type": "text/html" }).end("<html></html>"),
  );
  assert.match(await failure(first(empty.url)), /lists no version of contractpin-fixture-py$/);
  const broken = await faulty(t, (_q, r) => r.writeHead(500).end());
  assert.match(await failure(first(broken.url)), /answered HTTP 500 for contractpin-fixture-py$/);
});
