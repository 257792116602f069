// What the guard's tests with the official client share, over stdio and over
// the guard's HTTP listener: reading every tools/list page as served, and the
// drift in the middle of a session against the fake server.
import { ProtocolError, type Client } from "@modelcontextprotocol/client";
import { assert } from "./guard-harness.js";

// Every result untouched: the comparison is of what was served, not of what a schema kept.
export const ANY = {
  "~standard": { version: 1 as const, vendor: "test", validate: (value: unknown) => ({ value }) },
};

/** A tools/list page as the tests read it. */
export type Page = { tools: { name: string }[]; nextCursor?: string };

/** Every tools/list page, as served. */
export async function allPages(client: Client): Promise<Page[]> {
  const pages: Page[] = [];
  let cursor: string | undefined;
  do {
    const page = (await client.request(
      { method: "tools/list", params: cursor === undefined ? {} : { cursor } },
      ANY,
    )) as Page;
    pages.push(page);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return pages;
}

/** The names of the tools of every page, in order. */
export function names(pages: readonly Page[]): string[] {
  return pages.flatMap((p) => p.tools.map((t) => t.name));
}

/**
 * Against the fake server (tests/fixtures/servers/guard-fake-server.mjs):
 * the client lists, makes alpha drift, hears list_changed, lists without
 * alpha, and its call of alpha is refused with -32602 (reason drifted).
 */
export async function driftMidSession(client: Client): Promise<void> {
  let heard!: () => void;
  const notified = new Promise<void>((resolve) => (heard = resolve));
  client.setNotificationHandler("notifications/tools/list_changed", () => heard());
  assert.deepEqual(names(await allPages(client)), ["alpha", "beta", "mutate"]);
  await client.callTool({ name: "mutate", arguments: { what: "drift" } });
  await notified;
  assert.deepEqual(names(await allPages(client)), ["beta", "mutate"]);
  await assert.rejects(
    client.callTool({ name: "alpha", arguments: {} }),
    (err: unknown) =>
      err instanceof ProtocolError &&
      err.code === -32602 &&
      /Unknown tool: alpha/.test(err.message) &&
      (err.data as { reason?: string }).reason === "drifted",
  );
}
