import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { runnerPackage, withVersion } from "../../src/core/source/package-runner.js";
import { imageCredential } from "../../src/registry/image-auth.js";
import { imageName, parseImageName, type ImageRef } from "../../src/registry/image-ref.js";
import { compareTags, newestLike, newestVersionTag } from "../../src/registry/tag-order.js";
import { tempDir } from "../helpers/cleanup.js";

test("image names resolve as docker resolves them (distribution's reference normalisation)", () => {
  const cases: [string, string | [string, string, string]][] = [
    ["node", ["docker.io", "library/node", "https://registry-1.docker.io"]],
    ["mcp/github", ["docker.io", "mcp/github", "https://registry-1.docker.io"]],
    ["docker.io/node", ["docker.io", "library/node", "https://registry-1.docker.io"]],
    ["index.docker.io/mcp/x", ["docker.io", "mcp/x", "https://registry-1.docker.io"]],
    ["ghcr.io/org/server", ["ghcr.io", "org/server", "https://ghcr.io"]],
    ["registry.local:5000/a/b/c", ["registry.local:5000", "a/b/c", "https://registry.local:5000"]],
    ["localhost/x", ["localhost", "x", "http://localhost"]],
    ["localhost:5000/x", ["localhost:5000", "x", "http://localhost:5000"]],
    ["127.0.0.1:5000/x", ["127.0.0.1:5000", "x", "http://127.0.0.1:5000"]],
    ["127.1.2.3/x", ["127.1.2.3", "x", "http://127.1.2.3"]],
    ["[::1]:5000/x", ["[::1]:5000", "x", "http://[::1]:5000"]],
    // Only loopback is asked over plain HTTP; a private address is not.
    ["10.0.0.1:5000/x", ["10.0.0.1:5000", "x", "https://10.0.0.1:5000"]],
    ["128.0.0.1/x", ["128.0.0.1", "x", "https://128.0.0.1"]],
    // An upper-case first component is a host to docker, never a Docker Hub user.
    ["Registry/x", ["Registry", "x", "https://Registry"]],
    ["user/Upper", "'user/Upper' is not a repository name"],
    ["a//b", "'a//b' is not a repository name"],
    ["bad_host!.io/x", "'bad_host!.io' is not a registry host"],
  ];
  for (const [name, expected] of cases) {
    const ref = parseImageName(name);
    const got = typeof ref === "string" ? ref : [ref.domain, ref.repository, ref.api];
    assert.deepEqual(got, expected, name);
  }
});

test("a docker spec's package and its new version: the tag replaced, digest and options kept out", () => {
  const cases: [string[], string, string, string[]][] = [
    [
      ["docker", "run", "-i", "--rm", "-e", "X=1", "ghcr.io/o/s:1.0.0", "--flag"],
      "ghcr.io/o/s",
      "1.0.0",
      ["docker", "run", "-i", "--rm", "-e", "X=1", "ghcr.io/o/s:1.1.0", "--flag"],
    ],
    [
      ["podman", "run", "localhost:5000/x"],
      "localhost:5000/x",
      "",
      ["podman", "run", "localhost:5000/x:1.1.0"],
    ],
    [["docker", "run", "node:latest"], "node", "", ["docker", "run", "node:1.1.0"]],
    [
      ["docker", "run", "ghcr.io/o/s:1.0@sha256:ab"],
      "ghcr.io/o/s",
      "",
      ["docker", "run", "ghcr.io/o/s:1.1.0"],
    ],
  ];
  for (const [command, name, version, upgraded] of cases) {
    const pkg = runnerPackage(command)!;
    assert.equal(pkg.ecosystem, "docker");
    assert.equal(pkg.name, name);
    assert.equal(pkg.version ?? "", version);
    assert.equal(imageName(pkg.spec), name);
    assert.deepEqual(withVersion(command, pkg, "1.1.0"), upgraded);
  }
});

test("tags: numbers by value, only the pinned tag's shape; latest is the newest plain version", async () => {
  assert.ok(compareTags("1.10.0", "1.9.0") > 0);
  assert.ok(compareTags("1.0.0", "1.0.0-alpine") < 0);
  assert.ok(compareTags("007", "7") !== 0);
  assert.ok(compareTags("20240101123456789012", "20240101123456789011") > 0);
  const tags = ["1.2.0", "1.10.0", "1.11.0-rc1", "1.3.0-alpine", "1.0.0-alpine", "v9.0.0", "2"];
  assert.equal(await newestLike("1.0.0", tags), "1.10.0");
  assert.equal(await newestLike("1.0.0-alpine", tags), "1.3.0-alpine");
  assert.equal(await newestLike("1.0.0-slim", tags), undefined);
  assert.equal(await newestVersionTag(tags), "2");
  assert.equal(await newestVersionTag(["v1.2", "v1.10", "latest"]), "v1.10");
  assert.equal(await newestVersionTag(["latest", "stable"]), undefined);
});

test("credentials: docker's Hub key and host keys; podman's namespace keys, most specific first", () => {
  const home = tempDir();
  const ref = (name: string) => parseImageName(name) as ImageRef;
  const b64 = (s: string) => Buffer.from(s).toString("base64");
  mkdirSync(join(home, ".docker"));
  writeFileSync(
    join(home, ".docker", "config.json"),
    JSON.stringify({
      auths: {
        "https://index.docker.io/v1/": { auth: b64("hub:1") },
        "https://ghcr.io/v2/": { auth: b64("gh:2") },
        "quay.io/team": { auth: b64("ns:3") },
        "quay.io": { auth: b64("quay:4") },
        "tok.io": { identitytoken: "id-5" },
      },
    }),
  );
  const docker = (name: string) => imageCredential(ref(name), false, {}, home);
  const podman = (name: string) =>
    imageCredential(ref(name), true, { XDG_RUNTIME_DIR: home }, home);
  assert.equal(docker("mcp/x")?.basic, "hub:1");
  assert.equal(docker("ghcr.io/o/s")?.basic, "gh:2");
  assert.equal(docker("quay.io/team/x")?.basic, "quay:4"); // docker matches hosts only
  assert.equal(docker("tok.io/x")?.identityToken, "id-5");
  assert.equal(docker("other.io/x"), undefined);
  assert.equal(podman("quay.io/team/x")?.basic, "ns:3");
  assert.equal(podman("quay.io/else/x")?.basic, "quay:4");
  assert.equal(podman("docker.io/mcp/x")?.basic, "hub:1");
  // A podman file found first wins over docker's; a credsStore there is not podman's.
  mkdirSync(join(home, "containers"));
  writeFileSync(
    join(home, "containers", "auth.json"),
    JSON.stringify({ credsStore: "desktop", auths: { "ghcr.io": { auth: b64("pod:6") } } }),
  );
  assert.equal(podman("ghcr.io/o/s")?.basic, "pod:6");
  writeFileSync(join(home, ".docker", "config.json"), JSON.stringify({ credsStore: "desktop" }));
  assert.deepEqual(docker("ghcr.io/o/s"), {
    helper: "desktop",
    file: join(home, ".docker", "config.json"),
  });
  writeFileSync(join(home, ".docker", "config.json"), '{"auths": {}, "auths": {}}');
  assert.throws(() => docker("x"), { code: "REGISTRY_UNREACHABLE" });
});
