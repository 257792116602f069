import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { packageRunnerWarning, runnerPackage } from "../../src/core/source/package-runner.js";

const warn = (command: string) => packageRunnerWarning("f: server s", command.split(" "));

describe("packageRunnerWarning warns for an unpinned package", () => {
  const cases: [string, RegExp][] = [
    [
      "npx -y @modelcontextprotocol/server-github",
      /npx -y @modelcontextprotocol\/server-github@1\.2\.3/,
    ],
    ["npx --yes pkg", /\(no version\)/],
    ["npx -y pkg@latest", /version 'latest' is not an exact one/],
    ["npx -y pkg@^1.2.0", /not an exact one/],
    ["npx -y @scope/pkg", /@scope\/pkg@1\.2\.3/],
    ["npx -p pkg@next bin", /version 'next'/],
    ["npx --package=pkg bin", /no version/],
    ["pnpm dlx pkg", /pnpm dlx pkg@1\.2\.3/],
    ["yarn dlx pkg", /yarn dlx/],
    ["bunx pkg", /bunx pkg@1\.2\.3/],
    ["npm exec -y -- pkg", /no version/],
    // npm takes the last of --no and --yes; other runners have no such option and always install.
    ["npx --no --yes pkg", /\(no version\)/],
    ["npx --no-install -y pkg", /\(no version\)/],
    ["pnpm dlx --no pkg", /pnpm dlx/],
    ["/usr/local/bin/npx.cmd -y pkg", /no version/],
    ["uvx mcp-server-fetch", /uvx mcp-server-fetch@1\.2\.3/],
    ["uvx --python 3.12 mcp-server-fetch", /mcp-server-fetch, run through uvx/],
    ["uvx mcp-server-fetch@latest", /version 'latest'/],
    ["uvx mcp-server-fetch>=1.0", /no exact version/],
    ["uvx --from mcp-server-git mcp-server-git", /no exact version/],
    ["uv tool run pkg", /uv tool run pkg@1\.2\.3/],
    ["pipx run pkg", /pipx run --spec pkg==1\.2\.3 pkg/],
    ["docker run -i --rm mcp/fetch", /no tag, which means 'latest'/],
    [
      "docker run -i --rm -e GITHUB_TOKEN ghcr.io/github/github-mcp-server",
      /ghcr\.io\/github\/github-mcp-server, run through docker run/,
    ],
    ["docker run -i --rm mcp/fetch:latest", /tag 'latest'.*mcp\/fetch@sha256:…/],
    ["docker run --rm -i localhost:5000/img", /no tag/],
    ["podman run -i img", /podman run img:1\.2\.3/],
  ];
  for (const [command, expected] of cases) {
    it(command, () => {
      const warning = warn(command);
      assert.ok(warning !== undefined, "expected a warning");
      assert.match(warning, expected);
      assert.match(warning, /^f: server s: /);
      assert.match(
        warning,
        /Package drift is outside the contract: contractpin pins what the server says, not its code/,
      );
    });
  }
});

describe("packageRunnerWarning is silent", () => {
  for (const command of [
    "npx -y pkg@1.2.3",
    "npx -y @scope/pkg@1.2.3-beta.1",
    "npx -y ./local-server",
    "npx -y github:user/repo",
    "npx -p pkg@2.0.0 bin",
    "pnpm dlx pkg@1.0.0",
    "uvx mcp-server-fetch==2025.4.7",
    "uvx mcp-server-fetch@2025.4.7",
    "uvx --from mcp-server-git==1.0.0 mcp-server-git",
    "uvx --from git+https://github.com/x/y y",
    "pipx run --spec pkg==1.0 pkg",
    "docker run -i --rm mcp/fetch:1.0.2",
    "docker run -i --rm -v /data:/data mcp/fetch@sha256:0123abcd",
    "docker run --rm -i localhost:5000/img:2.1",
    "node server.js",
    "python -m server",
    "docker ps",
    "npx",
    // Told not to install, npx runs only what is installed (or fails to start).
    "npx --no pkg",
    "npx --no-install @scope/pkg",
    "npx --yes=false pkg@^1",
    "npx --no-yes pkg",
    "npx -y --no pkg",
    "npm exec --no -- pkg",
    "npm x --no pkg@latest",
  ]) {
    it(command, () => assert.equal(warn(command), undefined));
  }
});

describe("runnerPackage of npx told not to install", () => {
  const pkg = (command: string) => runnerPackage(command.split(" "));
  it("without an exact version: the installed package, no version", () => {
    assert.deepEqual(pkg("npx --no mcp-server-memory"), {
      ecosystem: "npm",
      invocation: "npx",
      spec: "mcp-server-memory",
      name: "mcp-server-memory",
      argIndex: 2,
      installed: true,
    });
    assert.equal(pkg("npm exec --no-install -- @scope/pkg@^2")?.installed, true);
  });
  it("with an exact version, or allowed to install, or another runner: not marked", () => {
    assert.deepEqual(pkg("npx --no pkg@1.2.3"), {
      ecosystem: "npm",
      invocation: "npx",
      spec: "pkg@1.2.3",
      name: "pkg",
      version: "1.2.3",
      argIndex: 2,
    });
    assert.equal(pkg("npx --no -y pkg")?.installed, undefined);
    assert.equal(pkg("npx pkg")?.installed, undefined);
    assert.equal(pkg("bunx --no pkg")?.installed, undefined);
  });
});
