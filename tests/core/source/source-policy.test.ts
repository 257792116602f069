import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { expandReferences } from "../../../src/core/source/server-source.js";
import { isCredentialName, looksLikeSecretValue } from "../../../src/core/source/secrets.js";
import { safeSource } from "../../../src/core/source/source-policy.js";
import { throwsCode } from "../../helpers/assert-code.js";

describe("secret heuristics", () => {
  it("credential names", () => {
    for (const name of [
      "API_KEY",
      "GITHUB_TOKEN",
      "DB_PASSWORD",
      "client-secret",
      "--api-key",
      "Authorization",
      "apiKey",
      "X-Api-Key",
    ]) {
      assert.ok(isCredentialName(name), name);
    }
    for (const name of [
      "DEBUG",
      "PORT",
      "LOG_LEVEL",
      "--verbose",
      "Accept",
      "HOME",
      "MONKEY_BUSINESS",
    ]) {
      assert.ok(!isCredentialName(name), name);
    }
  });

  it("credential shapes", () => {
    for (const value of [
      "sk-proj-abcdefghijklmnop",
      "ghp_0123456789abcdefghijABCDEFGHIJ",
      "Bearer abc.def.ghi",
      "AKIAIOSFODNN7EXAMPLE",
      "q8Zr2LmX0vT5nB7cK1yW4pD9",
    ]) {
      assert.ok(looksLikeSecretValue(value), value);
    }
    for (const value of [
      "1",
      "info",
      "/usr/local/share/data-directory-2024",
      "https://example.com/a/b/c/d/e/f",
      "@modelcontextprotocol/server-memory",
    ]) {
      assert.ok(!looksLikeSecretValue(value), value);
    }
  });
});

describe("safeSource", () => {
  it("keeps header templates and drops literal headers with a warning", () => {
    const { source, warnings } = safeSource("s", {
      transport: "http",
      url: "https://example.com/mcp",
      headers: { Authorization: "Bearer ${TOKEN}", "X-Literal": "abc" },
    });
    assert.deepEqual(source, {
      transport: "http",
      url: "https://example.com/mcp",
      headers: { Authorization: "Bearer ${TOKEN}" },
    });
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /header X-Literal is not written to the lock/);
  });

  it("keeps env references and harmless literals", () => {
    const source = {
      transport: "stdio" as const,
      command: ["node", "s.js", "--port", "3000"],
      env: { API_KEY: "${API_KEY}", DEBUG: "1" },
    };
    assert.deepEqual(safeSource("s", source).source, source);
  });

  it("refuses a reference wrapped around a literal secret", () => {
    throwsCode(
      () =>
        safeSource("s", {
          transport: "stdio",
          command: ["x"],
          env: { A: "${A}ghp_0123456789abcdefghijABCDEFGHIJ" },
        }),
      "SECRET_IN_DEFINITION",
    );
  });
});

describe("expandReferences", () => {
  it("expands ${VAR} and refuses an unset variable", () => {
    assert.equal(expandReferences("Bearer ${T}", { T: "x" }, "header"), "Bearer x");
    assert.match(
      throwsCode(() => expandReferences("${NOPE}", {}, "env A of server s"), "ENV_UNSET"),
      /NOPE is not set/,
    );
  });
});

describe("expandReferences refuses what it cannot expand", () => {
  it("a ${...} that is not ${NAME}", () => {
    assert.match(
      throwsCode(() => expandReferences("x ${input:token}", {}, "argument 1"), "ENV_UNSET"),
      /argument 1 has '\$\{input:token\}', which is not a reference/,
    );
    assert.match(
      throwsCode(() => expandReferences("${env:HOME}", { HOME: "/h" }, "env A"), "ENV_UNSET"),
      /'\$\{env:HOME\}'/,
    );
  });
});
