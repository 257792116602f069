// Issue 9, "No secret echoed, no secret written": the pure parts. The scan
// (what `add` refuses and `init` moves aside), the redaction of expanded
// values, empty variables, and the --allow-env check.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  argsCredential,
  containsSecret,
  credentialInUrlText,
  isLiteralEnvCredential,
  urlProblem,
} from "../../../src/core/source/credential-scan.js";
import { MIN_REDACTED_LENGTH, redactor } from "../../../src/core/source/redact.js";
import { headerReference, isCredentialName } from "../../../src/core/source/secrets.js";
import {
  expandReferences,
  expandedValues,
  referencedVariables,
} from "../../../src/core/source/server-source.js";
import { safeSource } from "../../../src/core/source/source-policy.js";
import { failureLines } from "../../../src/engine/failure.js";
import { guardSecrets } from "../../../src/core/source/server-secrets.js";
import type { ReadContext } from "../../../src/sources/read-tools.js";
import { throwsCode } from "../../helpers/assert-code.js";

/** throwsCode, and the message matches `pattern` when given. */
function throwsWith(fn: () => unknown, code: string, pattern?: RegExp): void {
  const message = throwsCode(fn, code);
  if (pattern !== undefined) assert.match(message, pattern);
}

describe("credential names the scan used to miss", () => {
  it("PW, PGPASS, --db-pw, passcode, JWT", () => {
    for (const name of [
      "PW",
      "DB_PW",
      "--db-pw",
      "--pw",
      "PGPASS",
      "PASSCODE",
      "JWT",
      "db_password",
    ]) {
      assert.ok(isCredentialName(name), name);
    }
  });

  it("harmless names stay harmless", () => {
    for (const name of [
      "DEBUG",
      "LOG_LEVEL",
      "NODE_ENV",
      "PORT",
      "--verbose",
      "BYPASS_CACHE",
      "COMPASS",
      "PGHOST",
      "PWA_MODE",
    ]) {
      assert.ok(!isCredentialName(name), name);
    }
  });
});

describe("argsCredential", () => {
  it("NAME=value arguments whose NAME is credential-like", () => {
    for (const args of [
      ["run", "-e", "DB_PASSWORD=hunter2"],
      ["run", "-e", "POSTGRES_PASSWORD=postgres"],
      ["run", "--env=SLACK_BOT_TOKEN=abc"],
      ["run", "--env", "SLACK_BOT_TOKEN=abc"],
      ["run", "-e", "PW=abc"],
      ["run", "-e", "PGPASS=abc"],
    ]) {
      assert.match(argsCredential(args) ?? "", /\(\w+=…\) looks like a credential/, args.join(" "));
    }
  });

  it("the value of --db-pw, --pgpass", () => {
    assert.equal(
      argsCredential(["--db-pw", "abc"]),
      "args[1] (the value of --db-pw) looks like a credential",
    );
    assert.ok(argsCredential(["--pgpass", "abc"]));
    assert.ok(argsCredential(["--db-pw=abc"]));
  });

  it("credential pairs inside a longer value, with _ in the name", () => {
    for (const text of [
      "host=db;db_password=abc",
      "a=1&access_token=abc",
      "Server=x;AccountKey=abc",
      "client_secret=abc",
    ]) {
      assert.ok(containsSecret(text), text);
      assert.ok(argsCredential(["--dsn", text]), text);
    }
  });

  it("harmless arguments pass", () => {
    assert.equal(
      argsCredential([
        "run",
        "-e",
        "DEBUG=1",
        "-e",
        "LOG_LEVEL=info",
        "-e",
        "NODE_ENV=production",
        "--port",
        "3000",
        "--verbose",
        "/usr/local/share/data",
        "--filter=status=open",
        "-e",
        "DB_PASSWORD=${DB_PASSWORD}",
        "-e",
        "API_KEY",
        "mcp-server-sqlite==2025.4.25",
        // A docker image pinned by its content digest: public.
        `ghcr.io/github/github-mcp-server@sha256:${"3f9a0c7e5b1d2468".repeat(4)}`,
      ]),
      undefined,
    );
  });
});

describe("URLs", () => {
  it("the code query parameter (an OAuth authorization code)", () => {
    assert.equal(
      credentialInUrlText("https://app.example.com/callback?code=4f2a9c"),
      "the query parameter code",
    );
    assert.equal(
      urlProblem("https://mcp.example.com/mcp?code=4f2a9c"),
      "its url holds the query parameter code, which looks like a credential",
    );
    assert.equal(urlProblem("https://mcp.example.com/mcp?code=${AUTH_CODE}"), undefined);
    assert.equal(urlProblem("https://mcp.example.com/mcp?mode=fast&lang=en"), undefined);
  });
});

describe("env values shaped like vendor keys", () => {
  const hex = "3f9a0c7e5b1d2468".repeat(4);
  const keys = [
    "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOp",
    "sk_live_51H8abcdefghijklmnop",
    "AKIAIOSFODNN7EXAMPLE",
    "glpat-abcdefghij0123456789",
    "github_pat_11ABCDEFG0123456789_abcdefghij",
    // Newly covered: lower-case or hex bodies after a vendor prefix.
    `dop_v1_${hex}`,
    `shpat_${hex.slice(0, 32)}`,
    `fc-${hex.slice(0, 32)}`,
    `pplx-${hex.slice(0, 48)}`,
    "hf_abcdefghijklmnopqrstuvwxyz1234",
    "npm_abcdefghijklmnopqrstuvwxyz0123456789",
    "glrt-abcdefghij0123456789",
    "sntrys_abcdefghijklmnopqrstuvwxyz0123",
    "hvs.abcdefghijklmnopqrstuvwxyz",
    `dapi${hex.slice(0, 32)}`,
    "acme_live_abcdefghijklmnop0123456789", // an unknown vendor, the same shape
  ];
  it("are credentials whatever the variable's name", () => {
    for (const key of keys) assert.ok(isLiteralEnvCredential("CONFIG", key), key);
  });
  it("also inside NAME=value or user:key text", () => {
    assert.ok(containsSecret(`DO=dop_v1_${hex}`));
    assert.ok(containsSecret(`bot:dop_v1_${hex}`));
  });
  it("harmless values are not", () => {
    for (const value of [
      "1",
      "info",
      "production",
      "3000",
      "/usr/local/bin",
      "en_US.UTF-8",
      "us-east-1",
      "https://api.example.com/v1",
      "@modelcontextprotocol/server-memory@2026.8.31",
      "mcp-server-sqlite==2025.4.25",
      "node_modules/.bin/server",
      "my-service-name",
    ]) {
      assert.ok(!isLiteralEnvCredential("CONFIG", value), value);
    }
  });
});

describe("headers: one rule for add and init", () => {
  it("a literal credential header is refused with the reference init would write", () => {
    const ref = headerReference("search", "Authorization", "Bearer abc");
    assert.deepEqual(ref, {
      template: "Bearer ${SEARCH_AUTHORIZATION}",
      variable: "SEARCH_AUTHORIZATION",
      secret: "abc",
    });
    assert.equal(headerReference("context7", "CONTEXT7_API_KEY", "k").variable, "CONTEXT7_API_KEY");
    throwsWith(
      () =>
        safeSource("search", {
          transport: "http",
          url: "https://x.example.com/mcp",
          headers: { Authorization: "Bearer abc123" },
        }),
      "SECRET_IN_DEFINITION",
      /--header 'Authorization: Bearer \$\{SEARCH_AUTHORIZATION\}'/,
    );
    for (const headers of <Record<string, string>[]>[
      { "X-API-Key": "1" },
      { Cookie: "a=${A}; session=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln" },
    ]) {
      throwsWith(
        () => safeSource("s", { transport: "http", url: "https://x.example.com/mcp", headers }),
        "SECRET_IN_DEFINITION",
      );
    }
  });
  it("a harmless literal header is dropped with a warning, as before", () => {
    const { source, warnings } = safeSource("s", {
      transport: "http",
      url: "https://x.example.com/mcp",
      headers: { "X-Api-Version": "2", Authorization: "Bearer ${TOKEN}" },
    });
    assert.deepEqual(source, {
      transport: "http",
      url: "https://x.example.com/mcp",
      headers: { Authorization: "Bearer ${TOKEN}" },
    });
    assert.equal(warnings.length, 1);
  });
});

describe("expandReferences", () => {
  it("an empty variable fails like an unset one, naming it", () => {
    throwsWith(
      () => expandReferences("Bearer ${TOKEN}", { TOKEN: "" }, "header Authorization"),
      "ENV_UNSET",
      /header Authorization refers to \$\{TOKEN\}, but TOKEN is empty/,
    );
    throwsWith(() => expandReferences("${TOKEN}", {}, "env T"), "ENV_UNSET", /TOKEN is not set/);
    assert.equal(expandReferences("a${X}b", { X: "1" }, "w"), "a1b");
  });
});

describe("expanded values", () => {
  const source = {
    transport: "stdio" as const,
    command: ["srv", "--key", "${ARG_KEY}", "${ARG_KEY}"],
    env: { A: "${LONG_VALUE}", B: "x${SHORT}", C: "${UNSET}", D: "${EMPTY}" },
  };
  it("names each referenced variable once; pairs the set ones, longest value first", () => {
    assert.deepEqual(referencedVariables(source), [
      "ARG_KEY",
      "LONG_VALUE",
      "SHORT",
      "UNSET",
      "EMPTY",
    ]);
    assert.deepEqual(
      expandedValues(source, {
        ARG_KEY: "abcdef",
        LONG_VALUE: "abcdefghij",
        SHORT: "ab",
        EMPTY: "",
      }),
      [
        ["abcdefghij", "${LONG_VALUE}"],
        ["abcdef", "${ARG_KEY}"],
        ["ab", "${SHORT}"],
      ],
    );
    assert.deepEqual(
      referencedVariables({
        transport: "http",
        url: "https://${HOST}/mcp",
        headers: { A: "Bearer ${T}" },
      }),
      ["HOST", "T"],
    );
    assert.deepEqual(referencedVariables({ transport: "file", path: "${NOT_EXPANDED}.json" }), []);
  });
});

describe("redactor", () => {
  const KEY = "sk-live-Qm7ZrX4pL9vT2wK8nB5cD1";
  const redact = redactor([[KEY, "${API_KEY}"]]);

  it("replaces the value and its URL-encoded and JSON-escaped spellings", () => {
    assert.equal(redact(`bad key ${KEY}!`), "bad key ${API_KEY}!");
    const odd = 'Zq8 Lm/x+Ré!"Tk4';
    const r = redactor([[odd, "${K}"]]);
    for (const form of [
      odd,
      encodeURIComponent(odd),
      encodeURI(odd),
      new URLSearchParams({ k: odd }).toString().slice(2),
      JSON.stringify(odd).slice(1, -1),
      encodeURIComponent(odd).replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase()),
    ]) {
      assert.equal(r(`<${form}>`), "<${K}>", form);
    }
  });

  it("values shorter than MIN_REDACTED_LENGTH are left alone; from that length on they are replaced", () => {
    assert.equal(MIN_REDACTED_LENGTH, 4);
    const r = redactor([
      ["1", "${DEBUG}"],
      ["abc", "${A}"],
      ["wxyz", "${W}"],
    ]);
    assert.equal(r("exit 1 after abc, wxyz"), "exit 1 after abc, ${W}");
  });

  it("longest first, in one pass: a reference put in is not searched again", () => {
    const r = redactor([
      ["PASSWORD_VALUE", "${KEY}"],
      ["KEY}", "${OTHER}"],
      ["PASSWORD", "${P}"],
    ]);
    assert.equal(r("PASSWORD_VALUE and PASSWORD"), "${KEY} and ${P}");
  });

  it("a value cut short at an ellipsis or at either end of the line", () => {
    assert.equal(
      redact(`${"x".repeat(10)} ${KEY.slice(0, 9)}...`),
      `${"x".repeat(10)} \${API_KEY}...`,
    );
    assert.equal(redact(`${KEY.slice(0, 9)}… and more`), "${API_KEY}… and more");
    assert.equal(redact(`${KEY.slice(-7)} was the end`), "${API_KEY} was the end");
    assert.equal(redact(`ends with ${KEY.slice(0, 6)}`), "ends with ${API_KEY}");
    // Three characters left are not enough to say anything, or to be worth hiding.
    assert.equal(redact(`ends with ${KEY.slice(0, 3)}`), `ends with ${KEY.slice(0, 3)}`);
  });

  it("each line of a value of several lines, as a stderr tail shows them", () => {
    const pem =
      "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----";
    const r = redactor([[pem, "${PEM}"]]);
    assert.equal(r(`key: ${pem}`), "key: ${PEM}");
    assert.equal(r("| MIIEvQIBADANBgkqhkiG9w0BAQEFAASC"), "| ${PEM}");
  });

  it("no pairs, no change", () => {
    assert.equal(redactor([])("anything ${X}"), "anything ${X}");
  });
});

describe("guardSecrets (the engine's one place)", () => {
  it("redacts warnings, failure messages and detail lines", () => {
    const warnings: string[] = [];
    const ctx: ReadContext = {
      lockDir: "/",
      env: { TOKEN: "tok-9f8e7d6c5b" },
      timeoutMs: 1000,
      maxMessageBytes: 1024,
      warn: (m) => warnings.push(m),
    };
    const guard = guardSecrets(
      "remote",
      { transport: "http", url: "https://x.example.com/mcp", headers: { A: "Bearer ${TOKEN}" } },
      ctx,
    );
    guard.ctx.warn("stdout line: token tok-9f8e7d6c5b");
    assert.deepEqual(warnings, ["server remote: stdout line: token ${TOKEN}"]);
    const err = Object.assign(new Error("saw tok-9f8e7d6c5b"), { detail: ["| tok-9f8e7d6c5b"] });
    assert.deepEqual(failureLines(err, guard.redact), {
      message: "internal error: saw ${TOKEN}",
      detail: ["| ${TOKEN}"],
    });
    assert.equal(guard.expanded, true);
  });
});
