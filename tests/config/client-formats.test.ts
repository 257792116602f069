// Continue (YAML), Zed (context_servers) and Cline (cline_mcp_settings.json),
// read in place: each format's real shapes, as their own schemas define them
// (Continue's config-yaml mcp schema, Zed's ContextServerSettingsContent,
// Cline's src/services/mcp/schemas.ts).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { importConfig, type ImportResult } from "../../src/config/import-config.js";
import { isContractpinError } from "../../src/core/errors.js";

const options = { projectDir: "/work/project", home: "/home/ada" };
const read = (text: string, file: string): ImportResult =>
  importConfig(new TextEncoder().encode(text), file, options);
const sources = (r: ImportResult) => Object.fromEntries(r.servers.map((s) => [s.name, s.source]));
const skipped = (r: ImportResult) => Object.fromEntries(r.skipped.map((s) => [s.name, s.reason]));

const CONTINUE = `name: Team config # a comment
version: 0.0.1
schema: v1
mcpServers:
  - name: memory
    command: node
    args:
      - server.js
    env:
      MEMORY_FILE_PATH: \${{ secrets.MEMORY_FILE }}
  - name: docs
    type: streamable-http
    url: https://docs.example.com/mcp
    requestOptions:
      headers:
        Authorization: Bearer \${{ secrets.DOCS_TOKEN }}
  - uses: anthropic/memory-mcp
  - name: prompted
    command: node
    args: ["\${{ inputs.path }}"]
`;

describe("Continue's YAML", () => {
  it("config.yaml: stdio and HTTP servers, secrets as references, a hub block and an input skipped", () => {
    const r = read(CONTINUE, "/home/ada/.continue/config.yaml");
    assert.equal(r.format, "continue");
    assert.deepEqual(sources(r), {
      memory: {
        transport: "stdio",
        command: ["node", "server.js"],
        env: { MEMORY_FILE_PATH: "${MEMORY_FILE}" },
      },
      docs: {
        transport: "http",
        url: "https://docs.example.com/mcp",
        headers: { Authorization: "Bearer ${DOCS_TOKEN}" },
      },
    });
    const why = skipped(r);
    assert.match(why["anthropic/memory-mcp"]!, /block from the Continue hub/);
    assert.match(why["prompted"]!, /cannot be expanded/);
  });

  it("a duplicate key is refused, naming YAML and the line, never 'not valid TOML'", () => {
    const text = "mcpServers:\n  - name: a\n    command: x\n    command: y\n";
    assert.throws(
      () => read(text, ".continue/mcpServers/a.yaml"),
      (err: unknown) =>
        isContractpinError(err, "CONFIG_INVALID") &&
        err.message ===
          ".continue/mcpServers/a.yaml: not valid YAML: duplicated mapping key at line 4, column 5",
    );
    assert.throws(
      () => read("mcpServers: [\n", "a.yml"),
      (err: unknown) =>
        isContractpinError(err, "CONFIG_INVALID") && /not valid YAML/.test(err.message),
    );
  });

  it("no timestamps or merge keys: the core schema", () => {
    const r = read(
      "base: &b {command: node}\nmcpServers:\n  - name: s\n    <<: *b\n    args: [2020-01-01]\n",
      "c.yaml",
    );
    // `<<` is a plain key, so the server has no command; the date stays a string.
    assert.equal(r.servers.length, 0);
    assert.match(skipped(r)["s"]!, /neither a command nor a url/);
  });
});

describe("Zed's settings.json", () => {
  it("context_servers: flat and nested commands, HTTP, disabled, an extension's server skipped; comments allowed", () => {
    const r = read(
      `// Zed settings
{
  "theme": "One Dark",
  "context_servers": {
    "memory": { "source": "custom", "command": "node", "args": ["server.js"], "env": { "A": "1" } },
    "older": { "command": { "path": "node", "args": ["old.js"], "env": {} } },
    "remote": { "url": "https://mcp.example.com/mcp", "headers": { "X-Team": "core" } },
    "off": { "command": "node", "args": [], "enabled": false },
    "postgres": { "source": "extension", "settings": { "database_url": "x" } },
    "github": { "settings": { "token": "x" } },
  },
}
`,
      "/home/ada/.config/zed/settings.json",
    );
    assert.equal(r.format, "zed");
    assert.deepEqual(sources(r), {
      memory: { transport: "stdio", command: ["node", "server.js"], env: { A: "1" } },
      older: { transport: "stdio", command: ["node", "old.js"] },
      remote: {
        transport: "http",
        url: "https://mcp.example.com/mcp",
        // Every literal header value becomes a reference, as for every client.
        headers: { "X-Team": "${REMOTE_X_TEAM}" },
      },
    });
    assert.equal(skipped(r)["off"], "disabled");
    assert.match(skipped(r)["postgres"]!, /a Zed extension provides it/);
    // Settings alone (older Zed writes no source) are an extension's too.
    assert.match(skipped(r)["github"]!, /a Zed extension provides it/);
  });
});

describe("Cline's cline_mcp_settings.json", () => {
  it("type and the legacy transportType; disabled, autoApprove and timeout are Cline's own", () => {
    const r = read(
      JSON.stringify({
        mcpServers: {
          memory: {
            command: "node",
            args: ["server.js"],
            autoApprove: [],
            timeout: 60,
            type: "stdio",
          },
          legacy: { url: "https://a.example.com/sse", transportType: "sse" },
          streamable: { url: "https://b.example.com/mcp", type: "streamableHttp" },
          old: { command: "node", disabled: true },
        },
      }),
      "cline_mcp_settings.json",
    );
    assert.deepEqual(sources(r), {
      memory: { transport: "stdio", command: ["node", "server.js"] },
      legacy: { transport: "http", url: "https://a.example.com/sse" },
      streamable: { transport: "http", url: "https://b.example.com/mcp" },
    });
    assert.equal(skipped(r)["old"], "disabled");
    // A transportType contractpin does not read is named, not guessed.
    const odd = read(
      JSON.stringify({ mcpServers: { s: { command: "x", transportType: "websocket" } } }),
      "cline_mcp_settings.json",
    );
    assert.match(skipped(odd)["s"]!, /transport type 'websocket' is not supported/);
  });
});
