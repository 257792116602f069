// What the guard's tests with the official client share, over stdio and over
// the guard's HTTP listener: the drift in the middle of a session against the
// fake server.
import type { Client } from "@modelcontextprotocol/client";
import { allPages, assert, refusedAsDrifted, toolNames } from "./guard-harness.js";

/**
 * Against the fake server (tests/fixtures/servers/guard-fake-server.mjs):
 * the client lists, makes alpha drift, hears list_changed, lists without
 * alpha, and its call of alpha is refused with -32602 (reason drifted).
 */
export async function driftMidSession(client: Client): Promise<void> {
  let heard!: () => void;
  const notified = new Promise<void>((resolve) => (heard = resolve));
  client.setNotificationHandler("notifications/tools/list_changed", () => heard());
  assert.deepEqual(toolNames(await allPages(client)), ["alpha", "beta", "mutate"]);
  await client.callTool({ name: "mutate", arguments: { what: "drift" } });
  await notified;
  assert.deepEqual(toolNames(await allPages(client)), ["beta", "mutate"]);
  await assert.rejects(
    client.callTool({ name: "alpha", arguments: {} }),
    refusedAsDrifted("alpha"),
  );
}
