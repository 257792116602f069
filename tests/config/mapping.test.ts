import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { importConfig, type ImportResult } from "../../src/config/import-config.js";
import { throwsCode } from "../helpers/assert-code.js";

const options = { projectDir: "/work/project", home: "/home/ada" };
const SECRET = "ghp_FAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKE9999";

function run(config: unknown, file = "mcp.json"): ImportResult {
  return importConfig(new TextEncoder().encode(JSON.stringify(config)), file, options);
}
const one = (entry: unknown) => run({ mcpServers: { s: entry } });
const source = (entry: unknown) => {
  const r = one(entry);
  assert.equal(r.servers.length, 1, JSON.stringify(r.skipped));
  return r.servers[0]!.source;
};
const skipReason = (entry: unknown) => {
  const r = one(entry);
  assert.equal(r.servers.length, 0, "expected the server to be skipped");
  return r.skipped[0]!.reason;
};
/** The secret appears nowhere a user or the lock could see it. */
function hidden(r: ImportResult, secret = SECRET): void {
  const visible = JSON.stringify([r.servers.map((s) => s.source), r.warnings, r.skipped]);
  assert.ok(!visible.includes(secret), visible);
}

describe("mapping of stdio fields", () => {
  it("command + args → argv, env, cwd; numbers and booleans in env as text", () => {
    assert.deepEqual(
      source({
        command: "node",
        args: ["s.js", "--port", "3"],
        env: { PORT: 3, DEBUG: true },
        cwd: "sub",
      }),
      {
        transport: "stdio",
        command: ["node", "s.js", "--port", "3"],
        env: { PORT: "3", DEBUG: "true" },
        cwd: "sub",
      },
    );
  });

  it("an env entry set to null is left out, with a warning", () => {
    const r = one({ command: "node", env: { A: null, B: "1" } });
    assert.deepEqual(r.servers[0]!.source, {
      transport: "stdio",
      command: ["node"],
      env: { B: "1" },
    });
    assert.ok(r.warnings.some((w) => w.includes("env A is null")));
  });

  it("an empty cwd is left out; an empty command is skipped", () => {
    assert.deepEqual(source({ command: "node", cwd: "" }), {
      transport: "stdio",
      command: ["node"],
    });
    assert.match(skipReason({ command: "" }), /command is empty/);
  });

  it("type stdio without a command, both command and url, neither: skipped", () => {
    assert.match(skipReason({ type: "stdio", url: "http://x/" }), /no command/);
    assert.match(skipReason({ command: "node", url: "http://x/" }), /both a command and a url/);
    assert.match(skipReason({ args: ["x"] }), /neither a command nor a url/);
  });

  it("a key of the wrong type is CONFIG_INVALID naming the file and the entry", () => {
    const message = throwsCode(() => one({ command: "node", args: "s.js" }), "CONFIG_INVALID");
    assert.match(message, /^mcp\.json: mcpServers\.s\.args must be an array of strings$/);
    throwsCode(() => one({ command: 7 }), "CONFIG_INVALID");
    throwsCode(() => one({ command: "node", env: { A: {} } }), "CONFIG_INVALID");
    throwsCode(() => one({ command: "node", disabled: "yes" }), "CONFIG_INVALID");
    throwsCode(() => run({ mcpServers: { s: "node s.js" } }), "CONFIG_INVALID");
  });
});

describe("mapping of HTTP fields", () => {
  for (const type of ["http", "streamable-http", "streamableHttp", "sse"]) {
    it(`type ${type} is the http transport`, () => {
      assert.deepEqual(source({ type, url: "https://mcp.example.com/mcp" }), {
        transport: "http",
        url: "https://mcp.example.com/mcp",
      });
    });
  }

  it("`transport` is read like `type`; httpUrl wins over url", () => {
    assert.equal(source({ transport: "sse", url: "https://a.example/sse" }).transport, "http");
    assert.deepEqual(source({ httpUrl: "https://a.example/mcp", url: "https://a.example/sse" }), {
      transport: "http",
      url: "https://a.example/mcp",
    });
  });

  it("an unknown transport type is skipped with its reason", () => {
    assert.match(
      skipReason({ type: "websocket", url: "wss://x/" }),
      /transport type 'websocket' is not supported/,
    );
  });

  it("a URL that is not http(s), or not a URL, is skipped", () => {
    assert.match(skipReason({ url: "ftp://x/" }), /must be http: or https:/);
    assert.match(skipReason({ url: "not a url" }), /not a valid URL/);
  });
});

describe("references", () => {
  it("${env:X} and ${X} in every field become ${X}", () => {
    assert.deepEqual(
      source({
        command: "${env:NODE}",
        args: ["${env:SCRIPT}", "--x=${Y}"],
        env: { A: "${env:A_VALUE}" },
        cwd: "${env:DIR}",
      }),
      {
        transport: "stdio",
        command: ["${NODE}", "${SCRIPT}", "--x=${Y}"],
        env: { A: "${A_VALUE}" },
        cwd: "${DIR}",
      },
    );
    assert.deepEqual(
      source({ url: "https://${env:HOST}/mcp", headers: { "X-Key": "${env:KEY}" } }),
      {
        transport: "http",
        url: "https://${env:HOST}/mcp".replace("${env:HOST}", "${HOST}"),
        headers: { "X-Key": "${KEY}" },
      },
    );
  });

  it("${input:ID} becomes ${CONTRACTPIN_INPUT_ID}, with one warning per input", () => {
    const r = run({
      servers: {
        s: {
          type: "stdio",
          command: "x",
          args: ["${input:api-key}"],
          env: { K: "${input:api-key}" },
        },
      },
    });
    assert.deepEqual(r.servers[0]!.source, {
      transport: "stdio",
      command: ["x", "${CONTRACTPIN_INPUT_API_KEY}"],
      env: { K: "${CONTRACTPIN_INPUT_API_KEY}" },
    });
    assert.equal(r.warnings.filter((w) => w.includes("CONTRACTPIN_INPUT_API_KEY")).length, 1);
  });

  it("${workspaceFolder} is the project directory, ${workspaceFolderBasename} its name", () => {
    assert.deepEqual(
      source({ command: "node", args: ["${workspaceFolder}/s.js", "${workspaceFolderBasename}"] }),
      {
        transport: "stdio",
        command: ["node", "/work/project/s.js", "project"],
      },
    );
  });

  describe("with the lock's directory known (init): ${workspaceFolder} stays portable", () => {
    const at = (entry: unknown, lockDir = "/work/project", env?: Record<string, string>) =>
      importConfig(
        new TextEncoder().encode(JSON.stringify({ servers: { s: entry } })),
        "mcp.json",
        { ...options, lockDir, ...(env === undefined ? {} : { env }) },
      );
    const portable = (entry: unknown, lockDir?: string) => {
      const r = at(entry, lockDir);
      assert.equal(r.servers.length, 1, JSON.stringify(r.skipped));
      return r.servers[0]!.source;
    };

    it("in command, args and env: relative to the server's working directory (the lock's)", () => {
      assert.deepEqual(
        portable({
          command: "${workspaceFolder}/bin/s",
          args: ["${workspaceFolder}", "--root=${workspaceFolder}/data"],
          env: { DB: "${workspaceFolder}/db.sqlite" },
        }),
        {
          transport: "stdio",
          command: ["./bin/s", ".", "--root=./data"],
          env: { DB: "./db.sqlite" },
        },
      );
    });

    it("a lock in a subfolder: the paths lead back up to the project", () => {
      assert.deepEqual(
        portable({ command: "node", args: ["${workspaceFolder}/s.js"] }, "/work/project/ci"),
        { transport: "stdio", command: ["node", "../s.js"] },
      );
    });

    it("cwd relative to the lock's directory (left out when it is that directory); args relative to cwd", () => {
      assert.deepEqual(
        portable({ command: "node", args: ["${workspaceFolder}/s.js"], cwd: "${workspaceFolder}" }),
        { transport: "stdio", command: ["node", "./s.js"] },
      );
      assert.deepEqual(
        portable({
          command: "node",
          args: ["${workspaceFolder}/s.js"],
          cwd: "${workspaceFolder}/packages/api",
        }),
        { transport: "stdio", command: ["node", "../../s.js"], cwd: "packages/api" },
      );
    });

    it("an unset or empty ${input:ID} variable skips the server, naming the variable; set, it is pinned", () => {
      const entry = { command: "x", env: { K: "${input:api-key}" } };
      for (const env of [{}, { CONTRACTPIN_INPUT_API_KEY: "" }] as Array<Record<string, string>>) {
        const r = at(entry, undefined, env);
        assert.equal(r.servers.length, 0);
        assert.match(r.skipped[0]!.reason, /CONTRACTPIN_INPUT_API_KEY, which is not set/);
      }
      const set = at(entry, undefined, { CONTRACTPIN_INPUT_API_KEY: "v" });
      assert.equal(set.servers.length, 1);
    });
  });

  it("a form contractpin cannot expand skips the server, without quoting what follows it", () => {
    assert.match(
      skipReason({ command: "node", args: ["${command:pickFile}"] }),
      /\$\{command…\} cannot be expanded/,
    );
    const reason = skipReason({ command: "x", env: { TOKEN: `\${TOKEN:-${SECRET}}` } });
    assert.ok(!reason.includes(SECRET));
  });
});

describe("literal secrets", () => {
  it("a credential-named env literal becomes ${NAME}, the value only in secretValues", () => {
    const r = one({ command: "x", env: { API_KEY: "short", LOG: "debug" } });
    assert.deepEqual(r.servers[0]!.source, {
      transport: "stdio",
      command: ["x"],
      env: { API_KEY: "${API_KEY}", LOG: "debug" },
    });
    assert.deepEqual(r.servers[0]!.secretValues, { API_KEY: "short" });
    assert.ok(r.warnings.some((w) => w.includes("set API_KEY when verifying")));
    hidden(r, "short");
  });

  it("a token-shaped env literal under a plain name is moved too", () => {
    const r = one({ command: "x", env: { CONFIG: SECRET } });
    assert.deepEqual(r.servers[0]!.secretValues, { CONFIG: SECRET });
    hidden(r);
  });

  it("an env name that is not a variable name gets SERVER_NAME", () => {
    const r = one({ command: "x", env: { "api-key": SECRET } });
    assert.deepEqual(r.servers[0]!.source, {
      transport: "stdio",
      command: ["x"],
      env: { "api-key": "${S_API_KEY}" },
    });
    hidden(r);
  });

  it("every literal header becomes a reference, keeping an Authorization scheme", () => {
    const r = run({
      mcpServers: {
        "my-api": {
          url: "https://a.example/mcp",
          headers: { Authorization: `Bearer ${SECRET}`, "X-Tenant": "acme", "X-Key": "${KEY}" },
        },
      },
    });
    assert.deepEqual(r.servers[0]!.source, {
      transport: "http",
      url: "https://a.example/mcp",
      headers: {
        Authorization: "Bearer ${MY_API_AUTHORIZATION}",
        "X-Tenant": "${MY_API_X_TENANT}",
        "X-Key": "${KEY}",
      },
    });
    assert.deepEqual(r.servers[0]!.secretValues, {
      MY_API_AUTHORIZATION: SECRET,
      MY_API_X_TENANT: "acme",
    });
    assert.equal(r.warnings.length, 2);
    hidden(r);
    hidden(r, "acme");
  });

  it("a secret in args is skipped, whatever its form, and the reason never quotes it", () => {
    const cases: [string[], string][] = [
      [[SECRET], SECRET],
      [["--token", "abc"], "abc"],
      [["--api-key=abcd"], "abcd"],
      [["postgresql://u:hunter2@db/app"], "hunter2"],
      [["--x", `\${A}:${SECRET}`], SECRET],
      [["--header", `X-Key:${SECRET}`], SECRET],
      [[`https://hooks.example.com/services/${SECRET}`], SECRET],
    ];
    for (const [args, secret] of cases) {
      const r = one({ command: "server", args });
      assert.equal(r.servers.length, 0, JSON.stringify(args));
      assert.match(r.skipped[0]!.reason, /credential|password/);
      hidden(r, secret);
    }
  });

  it("args that merely look like flags or paths pass", () => {
    assert.equal(
      source({ command: "x", args: ["--port", "3000", "/a/very/long/path/to/a/file1234.txt"] })
        .transport,
      "stdio",
    );
    assert.equal(source({ command: "x", args: ["--token", "${TOKEN}"] }).transport, "stdio");
    assert.equal(
      source({ command: "x", args: ["postgresql://u:${PGPASSWORD}@db/app"] }).transport,
      "stdio",
    );
  });

  it("a secret in the URL is skipped: user:password, a query parameter, a path segment", () => {
    for (const url of [
      "https://u:hunter2@a.example/mcp",
      `https://a.example/mcp?api_key=${SECRET}`,
      `https://a.example/mcp/${SECRET}/sse`,
    ]) {
      const r = one({ url });
      assert.equal(r.servers.length, 0, url);
      hidden(r, url.includes("hunter2") ? "hunter2" : SECRET);
    }
    assert.equal(source({ url: "https://a.example/mcp?api_key=${KEY}" }).transport, "http");
  });

  it("an env URL with a password or a token is moved to a reference", () => {
    const r = one({ command: "x", env: { DATABASE_URL: "postgres://app:hunter2@db/app" } });
    assert.deepEqual(r.servers[0]!.source, {
      transport: "stdio",
      command: ["x"],
      env: { DATABASE_URL: "${DATABASE_URL}" },
    });
    hidden(r, "hunter2");
  });

  it("a reference mixed with a literal credential is skipped", () => {
    assert.match(skipReason({ command: "x", env: { A: `\${B}:${SECRET}` } }), /mixes a reference/);
    assert.match(
      skipReason({ url: "https://a.example/", headers: { A: `\${B} ${SECRET}` } }),
      /mixes a reference/,
    );
  });

  it("what only the lock's own policy catches is skipped too (a token as the command)", () => {
    const r = one({ command: SECRET });
    assert.equal(r.servers.length, 0);
    assert.match(r.skipped[0]!.reason, /looks like a credential/);
    hidden(r);
  });

  it("Gemini's $VAR is a reference; a $ password is not taken for one", () => {
    assert.deepEqual(source({ command: "x", env: { TOKEN: "$MY_TOKEN" } }), {
      transport: "stdio",
      command: ["x"],
      env: { TOKEN: "${MY_TOKEN}" },
    });
    const r = one({ command: "x", env: { TOKEN: "$hunter2" } });
    assert.deepEqual(r.servers[0]!.secretValues, { TOKEN: "$hunter2" });
    hidden(r, "hunter2");
  });
});

describe("disabled servers", () => {
  it("disabled: true and enabled: false are skipped as disabled; false and true are not", () => {
    const r = run({
      mcpServers: {
        a: { command: "x", disabled: true },
        b: { command: "x", enabled: false },
        c: { command: "x", disabled: false, enabled: true },
      },
    });
    assert.deepEqual(r.skipped, [
      { name: "a", file: "mcp.json", reason: "disabled" },
      { name: "b", file: "mcp.json", reason: "disabled" },
    ]);
    assert.deepEqual(
      r.servers.map((s) => s.name),
      ["c"],
    );
  });

  it("Gemini CLI's mcp.allowed and mcp.excluded", () => {
    const r = run({
      mcp: { allowed: ["a", "b"], excluded: ["b"] },
      mcpServers: { a: { command: "x" }, b: { command: "x" }, c: { command: "x" } },
    });
    assert.deepEqual(
      r.servers.map((s) => s.name),
      ["a"],
    );
    assert.deepEqual(
      r.skipped.map((s) => [s.name, s.reason]),
      [
        ["b", "disabled"],
        ["c", "disabled"],
      ],
    );
  });
});

describe("format recognition", () => {
  it("by content: servers, mcpServers, projects, TOML", () => {
    assert.equal(run({ servers: {} }).format, "vscode");
    assert.equal(run({ mcpServers: {} }).format, "mcp-servers");
    assert.equal(run({ projects: {}, mcpServers: {} }).format, "claude-code-user");
    const toml = importConfig(
      new TextEncoder().encode("[mcp_servers.a]\ncommand = 'x'\n"),
      "c",
      options,
    );
    assert.equal(toml.format, "codex");
  });

  it("a file with no server list is CONFIG_INVALID naming the keys expected", () => {
    const message = throwsCode(() => run({ theme: "dark" }, "settings.json"), "CONFIG_INVALID");
    assert.match(
      message,
      /^settings\.json: not an MCP client config: expected .*"mcpServers".*"servers".*mcp_servers/,
    );
    throwsCode(
      () => importConfig(new TextEncoder().encode("model = 'x'\n"), "c.toml", options),
      "CONFIG_INVALID",
    );
    throwsCode(() => run([1, 2]), "CONFIG_INVALID");
  });
});
