// verify --allow-env: which variables a lock may refer to, and (issue 15) the
// origins a bound variable may be sent to.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  checkAllowedVariables,
  parseAllowedVariables,
} from "../../../src/core/source/env-allowance.js";
import type { ServerSource } from "../../../src/core/source/server-source.js";
import { throwsCode } from "../../helpers/assert-code.js";

const http = (url: string, headers: Record<string, string>): ServerSource => ({
  transport: "http",
  url,
  headers,
});

describe("parseAllowedVariables", () => {
  it("reads names anywhere and NAME=ORIGIN bindings, one list or several", () => {
    const allowed = parseAllowedVariables(
      ["A, B=https://mcp.example.com", "B=http://127.0.0.1:8080/,C"],
      "--allow-env",
    );
    assert.deepEqual(
      [...allowed].map(([name, origins]) => [name, origins && [...origins]]),
      [
        ["A", undefined],
        ["B", ["https://mcp.example.com", "http://127.0.0.1:8080"]],
        ["C", undefined],
      ],
    );
    assert.equal(parseAllowedVariables([""], "CONTRACTPIN_ALLOW_ENV").size, 0);
  });

  it("refuses an entry that is neither, by position and never by its text", () => {
    for (const bad of [
      "sk-live-abc",
      "A=",
      "A=mcp.example.com",
      "A=https://mcp.example.com/mcp",
      "A=ftp://x.example.com",
      "A=https://user:pw@x.example.com",
      "1A",
    ]) {
      const message = throwsCode(
        () => parseAllowedVariables([`OK,${bad}`], "--allow-env"),
        "USAGE",
      );
      assert.match(message, /^--allow-env takes variable names .* entry 2 is not one/);
      assert.ok(!message.includes(bad), message);
    }
  });

  it("refuses a name that is allowed anywhere and also bound", () => {
    assert.match(
      throwsCode(() => parseAllowedVariables(["K", "K=https://a.example"], "--allow-env"), "USAGE"),
      /allows K anywhere and also binds it to an origin/,
    );
  });
});

describe("checkAllowedVariables", () => {
  const source = http("https://x.example.com/mcp", { A: "Bearer ${TOKEN}", B: "${OTHER}" });

  it("passes when every reference is allowed, and names the server and the first one that is not", () => {
    checkAllowedVariables("s", source, parseAllowedVariables(["TOKEN,OTHER,MORE"], "-"), {});
    assert.match(
      throwsCode(
        () => checkAllowedVariables("s", source, parseAllowedVariables(["TOKEN"], "-"), {}),
        "ENV_NOT_ALLOWED",
      ),
      /server s refers to \$\{OTHER\}/,
    );
    assert.match(
      throwsCode(() => checkAllowedVariables("s", source, new Map(), {}), "ENV_NOT_ALLOWED"),
      /\$\{TOKEN\}.*: none\)/,
    );
    checkAllowedVariables("f", { transport: "file", path: "x.json" }, new Map(), {});
  });

  it("lets a bound variable go to its origins only", () => {
    const allowed = parseAllowedVariables(
      ["TOKEN=https://x.example.com,TOKEN=https://y.example.com", "OTHER"],
      "--allow-env",
    );
    checkAllowedVariables("s", source, allowed, {});
    checkAllowedVariables("s", http("https://y.example.com/other", { A: "${TOKEN}" }), allowed, {});
    for (const url of [
      "https://x.example.com.evil.example/mcp",
      "http://x.example.com/mcp",
      "https://x.example.com:8443/mcp",
    ]) {
      const message = throwsCode(
        () => checkAllowedVariables("s", http(url, { A: "${TOKEN}" }), allowed, {}),
        "ENV_NOT_ALLOWED",
      );
      assert.match(
        message,
        /^server s would send \$\{TOKEN\} to .* but --allow-env .*binds it to https:\/\/x\.example\.com, https:\/\/y\.example\.com; it was not contacted$/,
      );
    }
  });

  it("judges the URL with its own references expanded", () => {
    const allowed = parseAllowedVariables(["TOKEN=https://x.example.com", "HOST"], "--allow-env");
    const templated = http("https://${HOST}/mcp", { A: "${TOKEN}" });
    checkAllowedVariables("s", templated, allowed, { HOST: "x.example.com" });
    assert.match(
      throwsCode(
        () => checkAllowedVariables("s", templated, allowed, { HOST: "evil.example" }),
        "ENV_NOT_ALLOWED",
      ),
      /would send \$\{TOKEN\} to https:\/\/evil\.example,/,
    );
    throwsCode(() => checkAllowedVariables("s", templated, allowed, {}), "ENV_NOT_ALLOWED");
  });

  it("refuses a bound variable in a stdio server, which could send it anywhere", () => {
    const allowed = parseAllowedVariables(["TOKEN=https://x.example.com"], "--allow-env");
    assert.match(
      throwsCode(
        () =>
          checkAllowedVariables(
            "s",
            { transport: "stdio", command: ["srv"], env: { T: "${TOKEN}" } },
            allowed,
            {},
          ),
        "ENV_NOT_ALLOWED",
      ),
      /server s is a stdio server and refers to \$\{TOKEN\}, which --allow-env .*binds to https:\/\/x\.example\.com; it was not started/,
    );
  });
});
