import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { runCli, startCli } from "../helpers/cli.js";
import { cleanUp } from "../helpers/cleanup.js";
import { pagingProxy, startImageRegistry, type ImageRegistry } from "../helpers/image-registry.js";
import { closedRegistry } from "../helpers/registry.js";
import { Workspace } from "../helpers/workspace.js";

// outdated (and upgrade's look-up) for docker run / podman run against a real
// image registry on loopback (Debian's docker-registry, the CNCF distribution
// registry), one open and one behind htpasswd. Images are pushed as plain HTTP
// calls: there is no docker daemon here.
const USER = "tester";
const PASSWORD = "s3cret-registry-password";
let open: ImageRegistry;
let locked: ImageRegistry;
let down: string;

before(async () => {
  [open, locked] = await Promise.all([
    startImageRegistry(),
    startImageRegistry({ login: { user: USER, password: PASSWORD } }),
  ]);
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
  await locked.push("team/private", ["1.0.0", "1.1.0"]);
});
after(() => cleanUp());

type Server = { command: string[]; env?: Record<string, string> };

/** A lock whose servers run these commands (pinned from a dump, then given the command). */
function project(servers: Record<string, Server>): Workspace {
  const ws = new Workspace();
  ws.dump("tools.json", [{ name: "echo", inputSchema: { type: "object" } }]);
  for (const name of Object.keys(servers)) {
    const r = runCli(["add", name, "--file", "tools.json"], { cwd: ws.dir });
    assert.equal(r.code, 0, r.stderr);
  }
  const lock = ws.lockJson();
  for (const [name, server] of Object.entries(servers)) {
    const { path: _p, ...pinned } = lock.servers[name]!;
    lock.servers[name] = { ...pinned, transport: "stdio", ...server };
  }
  ws.write("contractpin.lock", JSON.stringify(lock, null, 2));
  return ws;
}

/** A docker config folder whose config.json holds `config`. */
function dockerConfig(ws: Workspace, name: string, config: unknown): string {
  const dir = ws.path(name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "config.json"), JSON.stringify(config));
  return dir;
}

const auth = (user: string, password: string) => ({
  auth: Buffer.from(`${user}:${password}`).toString("base64"),
});

function outdated(ws: Workspace, args: string[] = [], env: Record<string, string> = {}) {
  return runCli(["outdated", ...args], { cwd: ws.dir, env: { HOME: ws.path("home"), ...env } });
}

describe("outdated: docker run", () => {
  test("the newest tag of the pinned tag's shape, ordered by number: exit 1 when newer, 0 when newest", () => {
    const image = `${open.host}/mcp/fixture`;
    const ws = project({
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
    const newest = project({ s: { command: ["docker", "run", `${image}:1.10.0`] } });
    const n = outdated(newest);
    assert.equal(n.code, 0, n.stderr);
    assert.equal(n.stdout, `s: ${image} 1.10.0 is the newest (${open.url})\n`);
  });

  test("latest or no tag is unpinned with the newest version tag; a tag that is no version, a missing tag and a digest fail closed", () => {
    const image = `${open.host}/mcp/fixture`;
    const digest = `sha256:${"a".repeat(64)}`;
    const ws = project({
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
        `a_untagged: ${image} is not pinned: docker run runs the newest, now 1.10.0 (${open.url})`,
        `b_latest: ${image} is not pinned: docker run runs the newest, now 1.10.0 (${open.url})`,
        `c_stable: ${prefix} tag stable is not a version: which tag is newer cannot be told`,
        `d_gone: ${prefix} mcp/fixture has no tag 1.5.0`,
        `e_digest: ${prefix} ${image} is pinned by digest, which no tag can be compared with; its newest version tag is 1.10.0`,
        "",
      ].join("\n"),
    );
  });

  test("an unknown repository and an unreachable registry: each its own line, exit 1", () => {
    const ws = project({
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
    const ws = project({
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

describe("outdated: registry credentials", () => {
  const image = () => `${locked.host}/team/private`;

  test("the credential comes from the DOCKER_CONFIG in the server's env, never contractpin's own; it is never shown", () => {
    const ws = project({ p: { command: ["docker", "run", `${image()}:1.0.0`] } });
    const good = dockerConfig(ws, "good", { auths: { [locked.host]: auth(USER, PASSWORD) } });
    // contractpin's own DOCKER_CONFIG is not what docker gets when the server starts.
    const mine = outdated(ws, [], { DOCKER_CONFIG: good });
    assert.equal(mine.code, 1);
    assert.equal(
      mine.stdout,
      `p: ${image()} not checked: registry ${locked.url}: refused team/private (HTTP 401); no credential for ${locked.host} in the runner's configuration\n`,
    );
    const lock = ws.lockJson();
    lock.servers.p!.env = { DOCKER_CONFIG: good };
    ws.write("contractpin.lock", JSON.stringify(lock, null, 2));
    const r = outdated(ws);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stdout, `p: ${image()} 1.0.0 -> 1.1.0 is newer (${locked.url})\n`);

    const wrong = dockerConfig(ws, "wrong", {
      auths: { [`https://${locked.host}`]: auth(USER, "nope") },
    });
    lock.servers.p!.env = { DOCKER_CONFIG: wrong };
    ws.write("contractpin.lock", JSON.stringify(lock, null, 2));
    const refused = outdated(ws, ["--json"]);
    assert.equal(refused.code, 1);
    assert.match(
      refused.stdout,
      /the credential for 127\.0\.0\.1:\d+ \(.*wrong\/config\.json\) was refused/,
    );
    for (const out of [mine, r, refused])
      for (const secret of [PASSWORD, auth(USER, PASSWORD).auth, auth(USER, "nope").auth, "nope"])
        assert.ok(!(out.stdout + out.stderr).includes(secret), "a credential was shown");
  });

  test("the user's ~/.docker/config.json in the server's HOME; a credential helper is named, never run", () => {
    const ws = project({ p: { command: ["docker", "run", `${image()}:1.1.0`] } });
    dockerConfig(ws, "home/.docker", { auths: { [locked.host]: auth(USER, PASSWORD) } });
    const r = outdated(ws);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `p: ${image()} 1.1.0 is the newest (${locked.url})\n`);
    dockerConfig(ws, "home/.docker", {
      auths: { [locked.host]: {} },
      credHelpers: { [locked.host]: "evil" },
    });
    const helper = outdated(ws);
    assert.equal(helper.code, 1);
    assert.match(
      helper.stdout,
      /refused team\/private \(HTTP 401\); its credential is kept by credential helper docker-credential-evil \(.*config\.json\), which contractpin does not run\n$/,
    );
    // A registry that answers anyone is read without the helper's credential.
    const anyone = project({
      p: { command: ["docker", "run", `${open.host}/mcp/fixture:1.10.0`] },
    });
    dockerConfig(anyone, "home/.docker", { credsStore: "evil" });
    const open_ = outdated(anyone);
    assert.equal(open_.code, 0, open_.stderr);
    assert.match(open_.stdout, / 1\.10\.0 is the newest /);
  });
});

describe("outdated: podman run", () => {
  test("a short name is not checked (registries.conf decides); a qualified one takes REGISTRY_AUTH_FILE", () => {
    const ws = project({
      q: { command: ["podman", "run", `${locked.host}/team/private:1.0.0`] },
      short: { command: ["podman", "run", "mcp/fixture:1.0.0"] },
    });
    const file = join(
      dockerConfig(ws, "podman", { auths: { [`${locked.host}/team`]: auth(USER, PASSWORD) } }),
      "config.json",
    );
    const lock = ws.lockJson();
    lock.servers.q!.env = { REGISTRY_AUTH_FILE: file };
    ws.write("contractpin.lock", JSON.stringify(lock, null, 2));
    const r = outdated(ws);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(
      r.stdout,
      [
        `q: ${locked.host}/team/private 1.0.0 -> 1.1.0 is newer (${locked.url})`,
        "short: mcp/fixture not checked: podman short name mcp/fixture is resolved through registries.conf; name its registry (docker.io/mcp/fixture)",
        "",
      ].join("\n"),
    );
  });
});

describe("upgrade: docker run", () => {
  test("the candidate cannot be read without a container runtime: exit 1 with the runner's reason, nothing written", () => {
    const ws = project({
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
