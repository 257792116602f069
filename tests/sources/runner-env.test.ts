import assert from "node:assert/strict";
import { test } from "node:test";
import { RUNNER_ENV, withheldBecause } from "../../src/sources/live/runner-env.js";
import { inheritedEnv } from "../../src/sources/live/spawn-spec.js";

// A Gemfury-style push token and a Cloudsmith-style entitlement token, made up.
const FURY = "1AbCdEfGhIjKlMnOpQrS";
const CLOUDSMITH = "3fHZNFn0Yd6iwlcg";

test("a proxy or index URL with a credential in any spelling a runner's HTTP client reads is withheld", () => {
  const withheld: [string, string][] = [
    // No scheme: curl, requests and reqwest read it as http://corp:SECRET@proxy:3128.
    ["HTTP_PROXY", "corp:SECRET@proxy:3128"],
    ["http_proxy", "corp:SECRET@proxy:3128"],
    ["HTTPS_PROXY", "token@proxy:3128"],
    // A token as a path segment of an index.
    ["PIP_INDEX_URL", `https://pypi.fury.io/${FURY}/acme/`],
    ["UV_INDEX_URL", `https://dl.cloudsmith.io/${CLOUDSMITH}/acme/repo/python/simple/`],
    [
      "PIP_EXTRA_INDEX_URL",
      "https://a.example/simple https://b.example/123e4567-e89b-12d3-a456-426614174000/simple",
    ],
    // Backslashes after a special scheme: WHATWG URL (Node, reqwest) reads https://u:SECRET@host/.
    ["npm_config_registry", "https:\\\\u:SECRET@host/"],
    ["NPM_CONFIG_PROXY", "https:u:SECRET@host"],
    // Percent-encoded: still a user name and password.
    ["https_proxy", "http://ci%40corp.example:p%40ss@proxy:3128"],
    ["HTTPS_PROXY", "ci%40corp:pass@proxy:3128"],
    // IPv6 hosts, with and without a scheme.
    ["HTTP_PROXY", "http://ci:pass@[::1]:3128"],
    ["HTTP_PROXY", "ci:pass@[fd00::1]:3128"],
    // A credential in the query or fragment, a named uv index with a user.
    ["UV_DEFAULT_INDEX", "https://idx.example/simple?access_token=abc"],
    ["UV_INDEX", "corp=https://u:p@idx.example/simple"],
    // Not a URL at all.
    ["PIP_INDEX_URL", "not a url"],
    ["NO_PROXY", "localhost,user:pass@host"],
    ["NO_PROXY", `localhost,${FURY}`],
    ["UV_INDEX_STRATEGY", "first index"],
    ["NODE_EXTRA_CA_CERTS", `/etc/ssl/${"ghp_"}${"a".repeat(36)}.pem`],
  ];
  for (const [name, value] of withheld) {
    const why = withheldBecause(name, value);
    assert.ok(why !== undefined, `${name}=${value} is passed`);
    assert.ok(!why.includes(value) && !why.includes("SECRET"), why);
  }
});

test("proxies, indexes, host lists, CA paths and settings without a credential are passed", () => {
  const passed: [string, string][] = [
    ["HTTP_PROXY", "http://proxy.internal:3128"],
    ["http_proxy", "proxy.internal:3128"],
    ["HTTPS_PROXY", "socks5h://127.0.0.1:1080"],
    ["HTTPS_PROXY", "http://[::1]:3128/"],
    ["HTTPS_PROXY", "[fd00::1]:3128"],
    ["NO_PROXY", "localhost,127.0.0.1,.corp.example,10.0.0.0/8,[::1]:8080,*"],
    ["no_proxy", "localhost, .internal"],
    ["PIP_INDEX_URL", "https://pypi.internal/simple"],
    ["UV_INDEX_URL", "https://gitlab.example/api/v4/projects/12345678/packages/pypi/simple"],
    ["PIP_EXTRA_INDEX_URL", "https://a.example/artifactory/api/pypi/pypi-remote/simple https://b/"],
    ["UV_INDEX", "corp=https://idx.example/simple https://other.example/simple"],
    ["npm_config_registry", "https://npm.pkg.github.com/"],
    ["NPM_CONFIG_CAFILE", "/etc/ssl/corp-ca.pem"],
    ["PIP_CONFIG_FILE", "/dev/null"],
    ["NPM_CONFIG_STRICT_SSL", "false"],
    ["UV_INDEX_STRATEGY", "unsafe-best-match"],
  ];
  for (const [name, value] of passed)
    assert.equal(withheldBecause(name, value), undefined, `${name}=${value}`);
  assert.equal(withheldBecause("NPM_TOKEN", "x"), "it is not a runner variable");
  assert.ok(RUNNER_ENV.includes("HTTPS_PROXY") && RUNNER_ENV.includes("https_proxy"));
});

test("inheritedEnv passes what is clean, tells each variable withheld once, and never its value", () => {
  const told: string[] = [];
  const env = inheritedEnv(
    {
      HOME: "/home/ci",
      HTTP_PROXY: "corp:SECRET@proxy:3128",
      HTTPS_PROXY: "http://proxy:3128",
      PIP_INDEX_URL: `https://pypi.fury.io/${FURY}/acme/`,
      NPM_TOKEN: "npm_secret",
    },
    (name, why) => told.push(`${name}: ${why}`),
  );
  assert.deepEqual(env, { HOME: "/home/ci", HTTPS_PROXY: "http://proxy:3128" });
  assert.deepEqual(told, [
    "HTTP_PROXY: it is a URL with a user name or password that may be a credential",
    "PIP_INDEX_URL: it is a URL with a path segment that may be a credential",
  ]);
});
