import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { RawClient } from "../guard/guard-harness.js";
import { cleanUp } from "../helpers/cleanup.js";
import { oneLine, runCli } from "../helpers/cli.js";
import { basicAuth, dockerConfig } from "../helpers/image-project.js";
import { startImageRegistry, type ImageRegistry } from "../helpers/image-registry.js";
import { buildTree, PY_PKG, serveTree } from "../helpers/python-index.js";
import { closedRegistry, startRegistry, type LocalRegistry } from "../helpers/registry.js";
import { Workspace } from "../helpers/workspace.js";

// --artifacts (SPEC.md 11) against real registries on loopback, as the upgrade
// tests run them: verdaccio (npx installs the fixture server from it), a
// static Simple API tree served by python3's http.server (pipx installs it),
// Debian's docker-registry (there is no container runtime here: `docker` is a
// shim on PATH that logs its arguments and runs the fixture server). The
// expected values come from the registries themselves (npm view, the files'
// own sha256, the registry's Docker-Content-Digest), never from contractpin.
const PKG = "contractpin-fixture-server";
const SERVER = fileURLToPath(new URL("../fixtures/npm-server/", import.meta.url));
let npm: LocalRegistry;
let images: ImageRegistry;
let down: string;

before(async () => {
  npm = await startRegistry();
  images = await startImageRegistry();
  down = await closedRegistry();
  npm.publish(PKG, "1.0.0", "1.0.0");
  npm.publish(PKG, "1.1.0", "1.1.0");
  await images.push("mcp/fixture", ["1.0.0"]);
});
after(() => cleanUp());

function verify(ws: Workspace, env: Record<string, string>, args: string[] = []) {
  return runCli(["verify", ...args], { cwd: ws.dir, env });
}

describe("npm: dist.integrity", () => {
  function project(spec = `${PKG}@1.0.0`): {
    ws: Workspace;
    env: Record<string, string>;
    home: string;
  } {
    const ws = new Workspace();
    const home = ws.path("home");
    mkdirSync(home);
    const auth = `${npm.url.replace(/^http:/, "")}:_authToken=${npm.token}`;
    writeFileSync(
      join(home, ".npmrc"),
      `registry=${npm.url}\n${auth}\ncache=${join(home, "npm-cache")}\nupdate-notifier=false\n`,
    );
    ws.write(
      ".mcp.json",
      JSON.stringify({ mcpServers: { dict: { command: "npx", args: ["-y", spec] } } }),
    );
    const env = { HOME: home, npm_config_userconfig: "", npm_config_registry: "" };
    return { ws, env, home };
  }

  test("update --artifacts records what npm view says; verify passes; a republished version fails at critical; an unreachable registry is exit 1", () => {
    const { ws, env, home } = project();
    const init = runCli(["init"], { cwd: ws.dir, env });
    assert.equal(init.code, 0, init.stderr);
    // init covers the project's configs (format 3) but records no artifact.
    assert.equal(
      Object.hasOwn((ws.lockJson().servers as Record<string, object>)["dict"]!, "artifact"),
      false,
    );
    const viewed = viewIntegrity("1.0.0");
    const recorded = runCli(["update", "--artifacts"], { cwd: ws.dir, env });
    assert.equal(recorded.code, 0, recorded.stderr);
    assert.match(
      recorded.stdout,
      new RegExp(
        `^dict: updated\n {2}now records its artifact: dist\\.integrity ${escape(viewed)}$`,
        "m",
      ),
    );
    const lock = ws.lockJson() as unknown as {
      contractpin: string;
      servers: Record<string, { artifact?: unknown; digest: string }>;
    };
    assert.equal(lock.contractpin, "3");
    assert.deepEqual(lock.servers["dict"]!.artifact, {
      kind: "npm",
      package: PKG,
      version: "1.0.0",
      integrity: viewed,
    });
    const ok = verify(ws, env);
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /^dict {2}ok/m);

    // update and init --force keep recording it (the lock says so), without --artifacts.
    for (const args of [["update"], ["init", "--force"]]) {
      const again = runCli(args, { cwd: ws.dir, env });
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stdout, /^dict: unchanged/m);
      assert.deepEqual(ws.lockJson().servers["dict"]!["artifact"], lock.servers["dict"]!.artifact);
    }

    // The registry now serves another tarball under 1.0.0.
    const other = `sha512-${createHash("sha512").update("another tarball").digest("base64")}`;
    npm.editMetadata(PKG, (doc) => {
      (doc.versions["1.0.0"]!["dist"] as Record<string, string>)["integrity"] = other;
    });
    try {
      const moved = verify(ws, env);
      assert.equal(moved.code, 1, moved.stderr);
      assert.match(
        moved.stdout,
        new RegExp(
          `\\[critical\\] artifact-changed at artifact/integrity: "${escape(viewed)}" -> "${escape(other)}"`,
        ),
      );
      assert.doesNotMatch(moved.stdout, /^dict {2}ok/m);
    } finally {
      npm.editMetadata(PKG, (doc) => {
        (doc.versions["1.0.0"]!["dist"] as Record<string, string>)["integrity"] = viewed;
      });
    }

    // The registry npm's configuration names cannot be reached: exit 1, never ok.
    writeFileSync(join(home, ".npmrc"), `registry=${down}\n`);
    const gone = verify(ws, env);
    assert.equal(gone.code, 1, gone.stderr);
    assert.match(
      gone.stdout,
      new RegExp(
        `^dict {2}UNREACHABLE {2}its artifact could not be checked: registry ${escape(down)}: ECONNREFUSED$`,
        "m",
      ),
    );
    const json = JSON.parse(verify(ws, env, ["--format", "json"]).stdout);
    assert.ok(
      JSON.stringify(json).includes('"artifact-unchecked"'),
      "the JSON report names the rule",
    );
  });

  test("upgrade --write of a server that records its artifact records the new version's", () => {
    const { ws, env } = project();
    const init = runCli(["init", "--artifacts"], { cwd: ws.dir, env });
    assert.equal(init.code, 0, init.stderr);
    const first = ws.lockJson().servers["dict"]!["artifact"] as { integrity: string };
    assert.equal(first.integrity, viewIntegrity("1.0.0"));
    const up = runCli(["upgrade", "dict", "--to", "1.1.0", "--write"], { cwd: ws.dir, env });
    assert.equal(up.code, 0, up.stderr);
    assert.deepEqual(ws.lockJson().servers["dict"]!["artifact"], {
      kind: "npm",
      package: PKG,
      version: "1.1.0",
      integrity: viewIntegrity("1.1.0"),
    });
    const ok = verify(ws, env);
    assert.equal(ok.code, 0, ok.stderr);
  });

  test("add --artifacts on a server with no exact version is refused (exit 2, one line); init notes it and pins it", () => {
    const { ws, env } = project();
    const r = runCli(["add", "x", "--artifacts", "--", "npx", "-y", PKG], { cwd: ws.dir, env });
    assert.equal(r.code, 2, r.stderr);
    assert.ok(oneLine(r.stderr), r.stderr);
    assert.match(r.stderr, /--artifacts records nothing for server 'x': .* pins no exact version/);
    const unpinned = project(PKG);
    const init = runCli(["init", "--artifacts"], { cwd: unpinned.ws.dir, env: unpinned.env });
    assert.equal(init.code, 0, init.stderr);
    assert.match(
      init.stderr,
      new RegExp(
        `^contractpin: note: no artifact recorded for dict: ${PKG} pins no exact version`,
        "m",
      ),
    );
    assert.equal(unpinned.ws.lockJson().servers["dict"]!["artifact"], undefined);
  });
});

describe("Python index: the files' sha256", () => {
  test("init --artifacts records every file of the version; verify passes; a replaced file fails at critical, in every format", async () => {
    const root = buildTree([
      { version: "1.0.0", tools: "1.0.0" },
      { version: "1.1.0", tools: "1.1.0" },
    ]);
    const index = (await serveTree(root)).url;
    const ws = new Workspace();
    const home = ws.path("home");
    mkdirSync(home);
    const args = ["run", "--spec", `${PY_PKG}==1.0.0`, PY_PKG];
    ws.write(".mcp.json", JSON.stringify({ mcpServers: { py: { command: "pipx", args } } }));
    const env = { HOME: home, PIP_INDEX_URL: index, PIP_CONFIG_FILE: "", XDG_CONFIG_HOME: "" };
    const init = runCli(["init", "--artifacts"], { cwd: ws.dir, env });
    assert.equal(init.code, 0, init.stderr);
    // The files of 1.0.0 in the tree, hashed here.
    const files = readdirSync(join(root, "files")).filter((f) => f.includes("-1.0.0"));
    assert.ok(files.length >= 2, "a wheel and an sdist");
    const expected = Object.fromEntries(files.map((f) => [f, sha256(join(root, "files", f))]));
    assert.deepEqual(ws.lockJson().servers["py"]!["artifact"], {
      kind: "python",
      package: PY_PKG,
      version: "1.0.0",
      files: expected,
    });
    const ok = verify(ws, env);
    assert.equal(ok.code, 0, ok.stderr);

    // The index now serves another wheel under the same name (a private index's file replaced).
    const wheel = files.find((f) => f.endsWith(".whl"))!;
    const path = join(root, "files", wheel);
    const before = sha256(path);
    writeFileSync(path, Buffer.concat([readFileSync(path), Buffer.from("replaced")]));
    const now = sha256(path);
    const page = join(root, "simple", PY_PKG, "index.html");
    writeFileSync(page, readFileSync(page, "utf8").replace(before.slice(7), now.slice(7)));
    const moved = verify(ws, env);
    assert.equal(moved.code, 1, moved.stderr);
    assert.match(
      moved.stdout,
      new RegExp(
        `\\[critical\\] artifact-changed at artifact/files/${escape(wheel)}: "${before}" -> "${now}"`,
      ),
    );
    // Build through the one pipeline: every format names the rule at critical.
    const json = JSON.parse(verify(ws, env, ["--format", "json"]).stdout);
    const text = JSON.stringify(json);
    assert.ok(text.includes('"artifact-changed"') && text.includes('"critical"'), text);
    const sarif = JSON.parse(verify(ws, env, ["--format", "sarif"]).stdout);
    assert.equal(sarif.runs[0].results[0].ruleId, "artifact-changed");
    assert.match(
      verify(ws, env, ["--format", "github"]).stdout,
      /::error .*artifact-changed|::error .*other contents/,
    );
    assert.match(verify(ws, env, ["--format", "markdown"]).stdout, /artifact-changed/);
  });
});

describe("image registry: the tag's manifest digest", () => {
  test("add --artifacts records the registry's digest and runs the image by it; a re-pushed tag fails at critical; a stopped registry is exit 1", async () => {
    const ws = new Workspace();
    const { path, log } = dockerShim(ws);
    const env = { HOME: ws.path("home"), PATH: path };
    const image = `${images.host}/mcp/fixture`;
    const added = runCli(
      ["add", "img", "--artifacts", "--", "docker", "run", "-i", "--rm", `${image}:1.0.0`],
      { cwd: ws.dir, env },
    );
    assert.equal(added.code, 0, added.stderr);
    assert.match(
      added.stdout,
      /^pinned img \(stdio .*; artifact: manifest digest sha256:[0-9a-f]{64}$/m,
    );
    const served = await fetch(`${images.url}v2/mcp/fixture/manifests/1.0.0`, {
      headers: { accept: "application/vnd.oci.image.manifest.v1+json" },
    });
    const digest = served.headers.get("docker-content-digest")!;
    assert.match(digest, /^sha256:[0-9a-f]{64}$/);
    assert.deepEqual(ws.lockJson().servers["img"]!["artifact"], {
      kind: "image",
      image,
      tag: "1.0.0",
      digest,
    });
    // The lock keeps the tag; what ran is the digest.
    assert.deepEqual(ws.lockJson().servers["img"]!["command"], [
      "docker",
      "run",
      "-i",
      "--rm",
      `${image}:1.0.0`,
    ]);
    assert.equal(readFileSync(log, "utf8"), `run -i --rm ${image}@${digest}\n`);
    const ok = verify(ws, env);
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(readFileSync(log, "utf8"), `run -i --rm ${image}@${digest}\n`.repeat(2));

    // The guard runs what verify checked: the recorded digest.
    const guard = new RawClient(["img", "--lock", ws.path("contractpin.lock")], env);
    try {
      await guard.initialize();
      const listed = await guard.request(1, "tools/list");
      assert.ok(listed.result.tools.length > 0, JSON.stringify(listed));
    } finally {
      await guard.close();
    }
    assert.equal(readFileSync(log, "utf8"), `run -i --rm ${image}@${digest}\n`.repeat(3));

    // The tag is pushed again with other contents.
    await images.push("mcp/fixture", ["1.0.0"], " re-pushed");
    const moved = verify(ws, env);
    assert.equal(moved.code, 1, moved.stderr);
    const now = (
      await fetch(`${images.url}v2/mcp/fixture/manifests/1.0.0`, {
        headers: { accept: "application/vnd.oci.image.manifest.v1+json" },
      })
    ).headers.get("docker-content-digest")!;
    assert.notEqual(now, digest);
    assert.match(
      moved.stdout,
      new RegExp(`\\[critical\\] artifact-changed at artifact/digest: "${digest}" -> "${now}"`),
    );
    // Other contents under the pinned tag are not started.
    assert.equal(readFileSync(log, "utf8").split("\n").length - 1, 3);

    images.stop();
    const gone = verify(ws, env);
    assert.equal(gone.code, 1, gone.stderr);
    assert.match(
      gone.stdout,
      new RegExp(
        `^img {2}UNREACHABLE {2}its artifact could not be checked: registry ${escape(images.url)}: ECONNREFUSED$`,
        "m",
      ),
    );
  });
});

/** A `docker` on PATH that logs its arguments and runs the fixture server (there is no container runtime here). */
function dockerShim(ws: Workspace): { path: string; log: string } {
  const bin = ws.path("bin");
  mkdirSync(bin);
  const log = ws.path("docker.log");
  const shim = join(bin, "docker");
  // The fixture server, copied beside the shim with the tools of its 1.0.0.
  const server = ws.path("server");
  cpSync(SERVER, server, { recursive: true });
  cpSync(join(server, "tools-1.0.0.json"), join(server, "tools.json"));
  writeFileSync(
    shim,
    `#!/bin/sh\necho "$@" >> ${JSON.stringify(log)}\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(join(server, "server.cjs"))}\n`,
  );
  chmodSync(shim, 0o755);
  return { path: `${bin}:${process.env["PATH"]}`, log };
}

/** What npm's own client says the registry serves for the fixture at `version`. */
function viewIntegrity(version: string): string {
  const viewed = spawnSync("npm", ["view", `${PKG}@${version}`, "dist.integrity"], {
    env: { ...process.env, ...npm.npmEnv },
    encoding: "utf8",
  });
  assert.equal(viewed.status, 0, viewed.stderr);
  return viewed.stdout.trim();
}

function sha256(path: string): string {
  return `sha256:${createHash("sha256").update(readFileSync(path)).digest("hex")}`;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

describe("image registry with a login", () => {
  test("the digest is asked with the runner's credential (the server's DOCKER_CONFIG), never contractpin's own; without it nothing is written (exit 1), and the password is never shown", async () => {
    const user = "tester";
    const password = "s3cret-registry-password";
    const locked = await startImageRegistry({ login: { user, password } });
    await locked.push("team/private", ["1.0.0"]);
    const ws = new Workspace();
    const { path } = dockerShim(ws);
    const config = dockerConfig(ws, "docker", {
      auths: { [locked.host]: basicAuth(user, password) },
    });
    const image = `${locked.host}/team/private`;
    const add = (env: Record<string, string>, extra: string[] = []) =>
      runCli(["add", "p", "--artifacts", ...extra, "--", "docker", "run", "-i", `${image}:1.0.0`], {
        cwd: ws.dir,
        env: { HOME: ws.path("home"), PATH: path, ...env },
      });
    const mine = add({ DOCKER_CONFIG: config });
    assert.equal(mine.code, 1);
    assert.ok(oneLine(mine.stderr), mine.stderr);
    assert.match(
      mine.stderr,
      new RegExp(
        `server p: its artifact could not be recorded: registry ${escape(locked.url)}: refused team/private \\(HTTP 401\\); no credential for ${escape(locked.host)} in the runner's configuration`,
      ),
    );
    assert.equal(existsSync(ws.path("contractpin.lock")), false);
    const ok = add({}, ["--env", `DOCKER_CONFIG=${config}`]);
    assert.equal(ok.code, 0, ok.stderr);
    const served = await fetch(`${locked.url}v2/team/private/manifests/1.0.0`, {
      headers: {
        accept: "application/vnd.oci.image.manifest.v1+json",
        authorization: `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`,
      },
    });
    const artifact = ws.lockJson().servers["p"]!["artifact"] as { digest: string };
    assert.equal(artifact.digest, served.headers.get("docker-content-digest"));
    for (const out of [mine.stdout, mine.stderr, ok.stdout, ok.stderr])
      assert.doesNotMatch(out, new RegExp(password));
  });
});
