import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { runCli } from "../helpers/cli.js";
import { cleanUp } from "../helpers/cleanup.js";
import { basicAuth, dockerConfig, imageProject } from "../helpers/image-project.js";
import { startImageRegistry, type ImageRegistry } from "../helpers/image-registry.js";
import type { Workspace } from "../helpers/workspace.js";

// outdated for docker run / podman run against real registries on loopback
// (Debian's docker-registry): which credential the runner would send, read
// from the server's env and HOME, never contractpin's own, never shown.
const USER = "tester";
const PASSWORD = "s3cret-registry-password";
let open: ImageRegistry;
let locked: ImageRegistry;

before(async () => {
  [open, locked] = await Promise.all([
    startImageRegistry(),
    startImageRegistry({ login: { user: USER, password: PASSWORD } }),
  ]);
  await open.push("mcp/fixture", ["1.0.0", "1.10.0"]);
  await locked.push("team/private", ["1.0.0", "1.1.0"]);
});
after(() => cleanUp());

function outdated(ws: Workspace, args: string[] = [], env: Record<string, string> = {}) {
  return runCli(["outdated", ...args], { cwd: ws.dir, env: { HOME: ws.path("home"), ...env } });
}

describe("outdated: registry credentials", () => {
  const image = () => `${locked.host}/team/private`;

  test("the credential comes from the DOCKER_CONFIG in the server's env, never contractpin's own; it is never shown", () => {
    const ws = imageProject({ p: { command: ["docker", "run", `${image()}:1.0.0`] } });
    const good = dockerConfig(ws, "good", { auths: { [locked.host]: basicAuth(USER, PASSWORD) } });
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
      auths: { [`https://${locked.host}`]: basicAuth(USER, "nope") },
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
      for (const secret of [
        PASSWORD,
        basicAuth(USER, PASSWORD).auth,
        basicAuth(USER, "nope").auth,
        "nope",
      ])
        assert.ok(!(out.stdout + out.stderr).includes(secret), "a credential was shown");
  });

  test("the user's ~/.docker/config.json in the server's HOME; a credential helper is named, never run", () => {
    const ws = imageProject({ p: { command: ["docker", "run", `${image()}:1.1.0`] } });
    dockerConfig(ws, "home/.docker", { auths: { [locked.host]: basicAuth(USER, PASSWORD) } });
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
    const anyone = imageProject({
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
    const ws = imageProject({
      q: { command: ["podman", "run", `${locked.host}/team/private:1.0.0`] },
      short: { command: ["podman", "run", "mcp/fixture:1.0.0"] },
    });
    const file = join(
      dockerConfig(ws, "podman", { auths: { [`${locked.host}/team`]: basicAuth(USER, PASSWORD) } }),
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
