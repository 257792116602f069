import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./cleanup.js";

/** A tool as a server serves it. */
export type Tool = Record<string, unknown> & { name: string };

/** A small, realistic server: two tools with schemas and annotations. */
export function baseTools(): Tool[] {
  return [
    {
      name: "search",
      title: "Search",
      description: "Search the index for documents matching a query.",
      inputSchema: {
        type: "object",
        properties: { query: { type: "string" }, limit: { type: "integer", maximum: 50 } },
        required: ["query"],
        additionalProperties: false,
      },
      outputSchema: { type: "object", properties: { hits: { type: "array" } } },
      annotations: { readOnlyHint: true },
    },
    {
      name: "fetch_page",
      description: "Fetch one page by its id.",
      inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
    },
  ];
}

/**
 * A temporary directory with helpers to write dumps and read the lock. It is
 * removed when the test file ends (tests/helpers/cleanup.ts), and the fake
 * servers whose pids were recorded in it are ended if they still run.
 */
export class Workspace {
  readonly dir = tempDir("contractpin-test-");

  path(name: string): string {
    return join(this.dir, name);
  }

  /** Writes a tools/list result dump. */
  dump(name: string, tools: Tool[]): string {
    const path = this.path(name);
    writeFileSync(path, JSON.stringify({ tools }, null, 2));
    return path;
  }

  write(name: string, content: string | Uint8Array): string {
    const path = this.path(name);
    writeFileSync(path, content);
    return path;
  }

  read(name = "contractpin.lock"): string {
    return readFileSync(this.path(name), "utf8");
  }

  lockJson(
    name = "contractpin.lock",
  ): Record<string, unknown> & { servers: Record<string, Record<string, unknown>> } {
    return JSON.parse(this.read(name));
  }
}
