// The two faces of `contractpin guard` (stdio, and the --listen HTTP
// listener) behind one shape, for tests that run the same scenario on both.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { readFileSync } from "node:fs";
import { after } from "node:test";
import { CLI } from "../helpers/cli.js";
import { listening, officialClient, type Loose } from "./guard-harness.js";

export type Face = "stdio" | "listen";
export const FACES: readonly Face[] = ["stdio", "listen"];

/** A client connected through the guard: its stderr so far, and how to end both. */
export interface Guarded {
  client: Client;
  stderr: () => string;
  close: () => Promise<void>;
}

/** `contractpin guard ARGS` on one face, the official client connected through it. */
export async function guardedClient(
  face: Face,
  args: string[],
  setup: (client: Client) => void = () => undefined,
): Promise<Guarded> {
  if (face === "stdio") {
    const { client, stderr } = await officialClient(
      [process.execPath, CLI, "guard", ...args],
      undefined,
      setup,
    );
    return { client, stderr, close: () => client.close() };
  }
  const guard = await listening(args);
  const client = new Client({ name: "surface-test", version: "1.0.0" }, { capabilities: {} });
  setup(client);
  await client.connect(new StreamableHTTPClientTransport(new URL(guard.url)));
  return {
    client,
    // Without the listener's own first line.
    stderr: () => guard.stderr().replace(/^contractpin: guard: listening on \S+\n/, ""),
    close: async () => {
      await client.close();
      await guard.stop();
    },
  };
}

/** Waits until `test` holds, up to 10 s (stderr is its own pipe: a line may come after an answer). */
/**
 * guardedClient for one test file: every client it connects is closed (and
 * its guard ended) when the file's tests are done.
 */
export function closedAfterFile(): (
  face: Face,
  args: string[],
  setup?: (client: Client) => void,
) => Promise<Guarded> {
  const open: Guarded[] = [];
  after(async () => {
    for (const g of open) await g.close().catch(() => undefined);
  });
  return async (face, args, setup) => {
    const g = await guardedClient(face, args, setup);
    open.push(g);
    return g;
  };
}

/** The JSON lines of a --log file. */
export function logEvents(path: string): Loose[] {
  let text = "";
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return [];
  }
  return text
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Loose);
}

/** The error a request was answered with (fails when it was answered with a result). */
export async function refusal(pending: Promise<unknown>): Promise<Loose> {
  try {
    await pending;
  } catch (err) {
    return err;
  }
  throw new Error("the request was answered with a result, not refused");
}
