// The credential scan of `contractpin check` (src/core/lock/lock-credentials.ts):
// the snapshots hold servers' prose, judged by token shapes only.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { containsSecret, holdsToken } from "../../../src/core/source/credential-scan.js";
import { sourceCredentials, tokenPointers } from "../../../src/core/lock/lock-credentials.js";

const TOKEN = "ghp_" + "Zq8x3Lw0Yt5Rb2Nk7Vm4Hc9Jp1Sd6Fg3";

describe("holdsToken: prose is not a credential, a token in it is", () => {
  for (const prose of [
    "Basic authentication is used against the index.",
    "Token required: pass it in the Authorization header.",
    "Uses Basic authentication against the index.",
    "Contact admin@example.com or see https://docs.example.com/auth#tokens",
    "The token expires after one hour; set token=<your token> in the config.",
    "Pinned as image@sha256:" + "a".repeat(64) + " by the server.",
    "Read a file from /home/user/projects/contractpin/README.md",
  ]) {
    it(`not: ${prose.slice(0, 40)}`, () => assert.equal(holdsToken(prose), false));
  }
  it("the wording that containsSecret (for definitions) flags is left to it", () => {
    assert.equal(containsSecret("Uses Basic authentication against the index."), true);
    assert.equal(containsSecret("Token required: pass it in the Authorization header."), true);
  });
  for (const text of [
    `Default key: ${TOKEN}.`,
    `(${TOKEN})`,
    "Connect with postgres://admin:hunter2secret@db.example.com/app as the default.",
    "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----",
    `Authorization=${TOKEN}=`,
  ]) {
    it(`flags: ${text.slice(0, 24)}…`, () => assert.equal(holdsToken(text), true));
  }
});

describe("tokenPointers", () => {
  it("gives RFC 6901 pointers in document order, keys escaped, keys never judged", () => {
    const value = {
      [TOKEN]: "a key is a name",
      "a/b~c": [1, `x ${TOKEN}`],
      z: { deep: [{ v: TOKEN }] },
    };
    assert.deepEqual(tokenPointers(value), ["/a~1b~0c/1", "/z/deep/0/v"]);
    assert.deepEqual(tokenPointers(TOKEN), [""]);
  });
});

describe("sourceCredentials", () => {
  it("a template header is fine; literal ones are named, credentials or not, values never quoted", () => {
    const found = sourceCredentials({
      transport: "http",
      url: "https://mcp.example.com/mcp",
      headers: { Authorization: "Bearer ${TOKEN}", "X-Api-Version": "2", Cookie: "sid=abc" },
    });
    assert.deepEqual(found, [
      "header X-Api-Version is a literal value (contractpin writes headers only as ${VAR} templates)",
      "header Cookie holds a literal credential",
    ]);
  });
  it("a stdio server with harmless literals and references has none", () => {
    assert.deepEqual(
      sourceCredentials({
        transport: "stdio",
        command: ["npx", "-y", "server@1.2.3", "--verbose"],
        env: { LOG_LEVEL: "info", API_KEY: "${API_KEY}", PORT: "3000" },
      }),
      [],
    );
  });
});
