// The lock's auth member (src/core/source/server-auth.ts): how an http server
// authenticates, never a secret; and what reads, redaction and --allow-env
// see of it.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { validateAuth } from "../../../src/core/source/server-auth.js";
import {
  checkAllowedVariables,
  parseAllowedVariables,
} from "../../../src/core/source/env-allowance.js";
import { sourceCredentials } from "../../../src/core/lock/lock-credentials.js";
import { expandedValues, referencedVariables } from "../../../src/core/source/server-source.js";
import type { JsonValue } from "../../../src/core/json/json-value.js";
import type { ServerSource } from "../../../src/core/source/server-source.js";
import { throwsCode } from "../../helpers/assert-code.js";

const CC = {
  mode: "client_credentials",
  issuer: "https://auth.example.com/",
  client_id: "ci-bot",
  client_secret: "${CC_SECRET}",
};
const check = (value: JsonValue) => validateAuth(value, "servers.s.auth", "LOCK_CORRUPT");

describe("validateAuth", () => {
  it("accepts each mode with the members it needs", () => {
    assert.deepEqual(check(CC), CC);
    const rt = { ...CC, mode: "refresh_token", refresh_token: "${RT}" };
    assert.deepEqual(check(rt), rt);
    assert.deepEqual(check({ mode: "login" }), { mode: "login" });
    assert.deepEqual(check({ mode: "login", issuer: "http://127.0.0.1:9/" }), {
      mode: "login",
      issuer: "http://127.0.0.1:9/",
    });
  });
  for (const [what, value, message] of [
    ["an unknown mode", { ...CC, mode: "password" }, /auth\.mode must be one of/],
    [
      "a literal secret",
      { ...CC, client_secret: "hunter2hunter2" },
      /client_secret must be a reference/,
    ],
    ["a secret mixed with text", { ...CC, client_secret: "x${CC_SECRET}" }, /must be a reference/],
    [
      "a missing member",
      { mode: "client_credentials", issuer: CC.issuer },
      /client_id is required/,
    ],
    [
      "a member of another mode",
      { ...CC, refresh_token: "${RT}" },
      /refresh_token is not a member/,
    ],
    [
      "both a client secret and a private key",
      { ...CC, private_key: "${KEY}" },
      /needs exactly one of client_secret and private_key/,
    ],
    [
      "neither a client secret nor a private key",
      { mode: "client_credentials", issuer: CC.issuer, client_id: "x" },
      /needs exactly one of client_secret and private_key/,
    ],
    [
      "a literal private key",
      {
        mode: "client_credentials",
        issuer: CC.issuer,
        client_id: "x",
        private_key: "-----BEGIN PRIVATE KEY-----",
      },
      /private_key must be a reference/,
    ],
    [
      "an http issuer elsewhere than loopback",
      { ...CC, issuer: "http://auth.example.com/" },
      /https URL/,
    ],
    ["an issuer that is not a URL", { ...CC, issuer: "auth" }, /issuer URL/],
    ["not an object", "client_credentials", /servers\.s\.auth must be an object/],
  ] as const) {
    it(`refuses ${what}, in one line that does not quote a value`, () => {
      const message_ = throwsCode(() => check(value as JsonValue), "LOCK_CORRUPT");
      assert.match(message_, message);
      assert.ok(!message_.includes("hunter2"));
    });
  }
});

describe("the auth member's references are the server's references", () => {
  const source: ServerSource = {
    transport: "http",
    url: "https://mcp.example.com/mcp",
    auth: { ...CC, mode: "client_credentials" },
  };
  it("referencedVariables and expandedValues include them, so redaction hides the secret", () => {
    assert.deepEqual(referencedVariables(source), ["CC_SECRET"]);
    assert.deepEqual(expandedValues(source, { CC_SECRET: "s3cr3t-value" }), [
      ["s3cr3t-value", "${CC_SECRET}"],
    ]);
  });
  it("--allow-env binds the secret's variable to the server's origin", () => {
    const bound = parseAllowedVariables(["CC_SECRET=https://mcp.example.com"], "--allow-env");
    checkAllowedVariables("s", source, bound, {});
    const moved: ServerSource = { ...source, url: "https://evil.example/mcp" };
    throwsCode(() => checkAllowedVariables("s", moved, bound, {}), "ENV_NOT_ALLOWED");
  });
  it("check's credential scan names a literal secret in auth", () => {
    const literal = {
      ...source,
      auth: { ...CC, mode: "client_credentials" as const, client_secret: "hunter2" },
    };
    assert.deepEqual(sourceCredentials(literal), ["auth client_secret holds a literal credential"]);
    assert.deepEqual(sourceCredentials(source), []);
  });
});
