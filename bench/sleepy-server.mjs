// A stdio MCP server that answers tools/list after 600 ms and uses no CPU
// while it waits (a server busy on I/O, or a remote backend). For the
// benchmark of many servers at once: with enough concurrency, ten of them
// take about as long as one.
import { createInterface } from "node:readline";

const tools = [
  { name: "lookup", description: "Look a record up by id.", inputSchema: { type: "object" } },
  { name: "list", description: "List records.", inputSchema: { type: "object" } },
];
const write = (m) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...m }) + "\n");
createInterface({ input: process.stdin }).on("line", (line) => {
  const { id, method, params } = JSON.parse(line);
  if (id === undefined) return;
  if (method === "initialize") {
    write({
      id,
      result: {
        protocolVersion: params.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: "sleepy", version: "1.0.0" },
      },
    });
  } else if (method === "tools/list") {
    setTimeout(() => write({ id, result: { tools } }), 600);
  } else {
    write({ id, error: { code: -32601, message: `Method not found: ${method}` } });
  }
});
