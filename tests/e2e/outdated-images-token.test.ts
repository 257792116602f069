import assert from "node:assert/strict";
import { createServer } from "node:http";
import { after, before, describe, test } from "node:test";
import { startCli } from "../helpers/cli.js";
import { atEnd, cleanUp } from "../helpers/cleanup.js";
import { startImageRegistry, type ImageRegistry } from "../helpers/image-registry.js";
import { startTokenService, type TokenService } from "../helpers/token-service.js";
import { basicAuth, dockerConfig, imageProject } from "../helpers/image-project.js";
import type { Workspace } from "../helpers/workspace.js";

// outdated for docker run against a real registry (Debian's docker-registry)
// that wants Bearer tokens from a token service, as Docker Hub and ghcr.io
// do: the 401's challenge names the realm, docker's credential (or identity
// token) is traded there for a token, the token asks for the tags. The token
// service runs in this process, so the CLI is run without blocking it.
const LOGIN = { user: "tester", password: "t0ken-service-password", identityToken: "id-7f3a9c" };
let tokens: TokenService;
let registry: ImageRegistry;

before(async () => {
  tokens = await startTokenService(LOGIN);
  registry = await startImageRegistry({ token: tokens });
  await registry.push("team/private", ["1.0.0", "1.1.0"]);
});
after(() => cleanUp());

/** A lock with one server, `docker run IMAGE`, whose env names a docker config holding `config`. */
function project(config: unknown, image = `${registry.host}/team/private:1.0.0`): Workspace {
  const ws = imageProject({ p: { command: ["docker", "run", image] } });
  const lock = ws.lockJson();
  lock.servers.p!.env = { DOCKER_CONFIG: dockerConfig(ws, "docker", config) };
  ws.write("contractpin.lock", JSON.stringify(lock, null, 2));
  return ws;
}

async function outdated(ws: Workspace) {
  tokens.requests.length = 0;
  const r = await startCli(["outdated"], { cwd: ws.dir, env: { HOME: ws.path("home") } }).done;
  for (const secret of [LOGIN.password, LOGIN.identityToken, "eyJ"])
    assert.ok(!(r.stdout + r.stderr).includes(secret), "a credential or token was shown");
  return r;
}

const basic = (password: string) => basicAuth(LOGIN.user, password);

describe("outdated: a registry with a token service", () => {
  test("docker's credential is traded at the realm for a token (GET with Basic), and the tags are read with it", async () => {
    const r = await outdated(project({ auths: { [registry.host]: basic(LOGIN.password) } }));
    assert.equal(r.code, 1, r.stderr);
    assert.equal(
      r.stdout,
      `p: ${registry.host}/team/private 1.0.0 -> 1.1.0 is newer (${registry.url})\n`,
    );
    assert.deepEqual(tokens.requests, ["GET granted"]);
  });

  test("an identitytoken is traded as docker trades it (an OAuth2 refresh_token POST)", async () => {
    const r = await outdated(
      project({ auths: { [registry.host]: { identitytoken: LOGIN.identityToken } } }),
    );
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stdout, / 1\.0\.0 -> 1\.1\.0 is newer /);
    assert.deepEqual(tokens.requests, ["POST granted"]);
  });

  test("no credential, a wrong one, or one kept by a helper: refused, said so, exit 1", async () => {
    const prefix = `p: ${registry.host}/team/private not checked: registry ${registry.url}: refused team/private`;
    const none = await outdated(project({ auths: {} }));
    assert.equal(none.code, 1);
    assert.equal(
      none.stdout,
      `${prefix} (HTTP 401); no credential for ${registry.host} in the runner's configuration\n`,
    );
    assert.deepEqual(tokens.requests, ["GET anonymous"]);
    const wrong = await outdated(project({ auths: { [registry.host]: basic("wrong") } }));
    assert.equal(wrong.code, 1);
    assert.match(
      wrong.stdout,
      /refused team\/private \(HTTP 401\); the credential for 127\.0\.0\.1:\d+ \(.*config\.json\) was refused\n$/,
    );
    const helper = await outdated(project({ credsStore: "secretservice" }));
    assert.equal(helper.code, 1);
    assert.match(
      helper.stdout,
      /kept by credential helper docker-credential-secretservice \(.*\), which contractpin does not run\n$/,
    );
  });

  test("a realm over plain HTTP on another host is refused before any credential is sent", async () => {
    const challenge = 'Bearer realm="http://token.example.test/token",service="s"';
    const fake = createServer((_req, res) =>
      res.writeHead(401, { "www-authenticate": challenge }).end(),
    );
    await new Promise<void>((resolve) => fake.listen(0, "127.0.0.1", resolve));
    atEnd(() => fake.close());
    const host = `127.0.0.1:${(fake.address() as { port: number }).port}`;
    const ws = project({ auths: { [host]: basic(LOGIN.password) } }, `${host}/team/private:1.0.0`);
    const r = await outdated(ws);
    assert.equal(r.code, 1);
    assert.equal(
      r.stdout,
      `p: ${host}/team/private not checked: registry http://${host}/: named a token realm that is not HTTPS (http://token.example.test)\n`,
    );
  });
});
