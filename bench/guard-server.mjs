// A minimal stdio MCP server for bench/guard.bench.mjs: TOOLS tools
// (argv[2], default 10), each tools/call answered at once.
import { createInterface } from "node:readline";

const count = Number(process.argv[2] ?? 10);
const tools = Array.from({ length: count }, (_, i) => ({
  name: `tool_${i}`,
  description: `Tool number ${i}: does one thing with its input and returns a short text.`,
  inputSchema: {
    type: "object",
    properties: { text: { type: "string", description: "the input" }, n: { type: "integer" } },
    required: ["text"],
  },
}));
const list = JSON.stringify({ tools });
createInterface({ input: process.stdin }).on("line", (line) => {
  const { id, method, params } = JSON.parse(line);
  if (id === undefined) return;
  const out = (result) =>
    process.stdout.write(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${result}}\n`);
  if (method === "initialize")
    out(
      JSON.stringify({
        protocolVersion: params.protocolVersion,
        capabilities: { tools: { listChanged: true } },
        serverInfo: { name: "bench", version: "1" },
      }),
    );
  else if (method === "tools/list") out(list);
  else if (method === "tools/call")
    out(`{"content":[{"type":"text","text":${JSON.stringify(`ok ${params.name}`)}}]}`);
  else out("{}");
});
