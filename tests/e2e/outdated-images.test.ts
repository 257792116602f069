import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { runCli, startCli } from "../helpers/cli.js";
import { cleanUp } from "../helpers/cleanup.js";
import { pagingProxy, startImageRegistry, type ImageRegistry } from "../helpers/image-registry.js";
import { closedRegistry } from "../helpers/registry.js";
import { imageProject } from "../helpers/image-project.js";
import type { Workspace } from "../helpers/workspace.js";

// outdated (and upgrade's look-up) for docker run / podman run against a real
// image registry on loopback (Debian's docker-registry, the CNCF distribution
// registry). Images are pushed as plain HTTP calls: there is no docker daemon
// here. Credentials: outdated-images-auth.test.ts and outdated-images-token.test.ts.
let open: ImageRegistry;
let down: string;

before(async () => {
  open = await startImageRegistry();
  down = new URL(await closedRegistry()).host;
  await open.push("mcp/fixture", [
    "1.0.0",
    "1.2.0",
    "1.10.0",
    "2.0.0-rc1",
    "1.0.0-alpine",
    "1.3.0-alpine",
    "v1.0.0",
    "v2.0.0",
    "latest",
    "stable",
  ]);
  // More tags than one page holds (100), the newest (2.0.0) last in the registry's order.
  await open.push("mcp/paged", [...Array.from({ length: 120 }, (_, i) => `1.0.${i}`), "2.0.0"]);
});
after(() => cleanUp());

function outdated(ws: Workspace, args: string[] = [], env: Record<string, string> = {}) {
  return runCli(["outdated", ...args], { cwd: ws.dir, env: { HOME: ws.path("home"), ...env } });
}

describe("outdated: docker run", () => {
  test("the newest tag of the pinned tag's shape, ordered by number: exit 1 when newer, 0 when newest", () => {
    const image = `${open.host}/mcp/fixture`;
    const ws = imageProject({
      plain: { command: ["docker", "run", "-i", "--rm", `${image}:1.0.0`] },
      alpine: { command: ["docker", "run", "-i", `${image}:1.0.0-alpine`] },
      prefixed: { command: ["docker", "run", `${image}:v1.0.0`] },
    });
    const r = outdated(ws);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(
      r.stdout,
      [
        `alpine: ${image} 1.0.0-alpine -> 1.3.0-alpine is newer (${open.url})`,
        `plain: ${image} 1.0.0 -> 1.10.0 is newer (${open.url})`,
        `prefixed: ${image} v1.0.0 -> v2.0.0 is newer (${open.url})`,
        "",
      ].join("\n"),
    );
    const json = JSON.parse(outdated(ws, ["plain", "--json"]).stdout);
    assert.deepEqual(json.servers, [
      {
        name: "plain",
        status: "outdated",
        package: image,
        runner: "docker run",
        ecosystem: "docker",
        current: "1.0.0",
        latest: "1.10.0",
        registry: open.url,
      },
    ]);
    const newest = imageProject({ s: { command: ["docker", "run", `${image}:1.10.0`] } });
    const n = outdated(newest);
    assert.equal(n.code, 0, n.stderr);
    assert.equal(n.stdout, `s: ${image} 1.10.0 is the newest (${open.url})\n`);
  });

  test("latest or no tag is unpinned with the newest version tag; a tag that is no version, a missing tag and a digest fail closed", () => {
    const image = `${open.host}/mcp/fixture`;
    const digest = `sha256:${"a".repeat(64)}`;
    const ws = imageProject({
      a_untagged: { command: ["docker", "run", image] },
      b_latest: { command: ["docker", "run", `${image}:latest`] },
      c_stable: { command: ["docker", "run", `${image}:stable`] },
      d_gone: { command: ["docker", "run", `${image}:1.5.0`] },
      e_digest: { command: ["docker", "run", `${image}:1.0.0@${digest}`] },
    });
    const r = outdated(ws);
    assert.equal(r.code, 1, r.stderr);
    const prefix = `${image} not checked: registry ${open.url}:`;
    assert.equal(
      r.stdout,
      [
        `a_untagged: ${image} is not pinned: docker run runs the tag 'latest'; the newest version tag is 1.10.0 (${open.url})`,
        `b_latest: ${image} is not pinned: docker run runs the tag 'latest'; the newest version tag is 1.10.0 (${open.url})`,
        `c_stable: ${prefix} tag stable is not a version: which tag is newer cannot be told`,
        `d_gone: ${prefix} mcp/fixture has no tag 1.5.0`,
        `e_digest: ${prefix} ${image} is pinned by digest, which no tag can be compared with; its newest version tag is 1.10.0`,
        "",
      ].join("\n"),
    );
  });

  test("an unknown repository and an unreachable registry: each its own line, exit 1", () => {
    const ws = imageProject({
      gone: { command: ["docker", "run", `${open.host}/mcp/nothing:1.0.0`] },
      off: { command: ["docker", "run", `${down}/mcp/fixture:1.0.0`] },
    });
    const r = outdated(ws);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(
      r.stdout,
      [
        `gone: ${open.host}/mcp/nothing not checked: registry ${open.url}: has no repository mcp/nothing`,
        `off: ${down}/mcp/fixture not checked: registry http://${down}/: ECONNREFUSED`,
        "",
      ].join("\n"),
    );
  });

  test("tags over several pages: every page is read (Link), the newest is on the last", async () => {
    // The CLI runs without blocking this process, which serves the proxy.
    const paging = await pagingProxy(open);
    const ws = imageProject({
      paged: { command: ["docker", "run", `${paging.host}/mcp/paged:1.0.0`] },
    });
    const r = await startCli(["outdated"], { cwd: ws.dir, env: { HOME: ws.path("home") } }).done;
    assert.equal(r.code, 1, r.stderr);
    assert.equal(
      r.stdout,
      `paged: ${paging.host}/mcp/paged 1.0.0 -> 2.0.0 is newer (${paging.url})\n`,
    );
    assert.ok(paging.pages() >= 2, `${paging.pages()} pages asked`);
  });
});

describe("upgrade: docker run", () => {
  test("the candidate cannot be read without a container runtime: exit 1 with the runner's reason, nothing written", () => {
    const ws = imageProject({
      img: { command: ["docker", "run", "-i", `${open.host}/mcp/fixture:1.0.0`] },
    });
    const before = ws.read();
    const r = runCli(["upgrade", "img", "--write"], {
      cwd: ws.dir,
      env: { HOME: ws.path("home"), PATH: "/nonexistent" },
    });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, new RegExp(`img: ${open.host}/mcp/fixture 1\\.0\\.0 -> 1\\.10\\.0`));
    assert.match(r.stdout, /^img +UNREACHABLE +cannot start docker: command not found$/m);
    assert.match(r.stderr, /nothing was written/);
    assert.equal(ws.read(), before);
    const missing = runCli(["upgrade", "img", "--to", "9.9.9"], { cwd: ws.dir });
    assert.equal(missing.code, 1);
    assert.match(
      missing.stdout,
      new RegExp(`${open.host}/mcp/fixture:9\\.9\\.9 is not on ${open.url}`),
    );
    const bad = runCli(["upgrade", "img", "--to", "1.0;rm"], { cwd: ws.dir });
    assert.equal(bad.code, 2);
  });
});
