import { PROMPTS_KIND, RESOURCES_KIND, TEMPLATES_KIND, TOOLS_KIND } from "./guard-kinds.js";
import { handshakePolicy } from "./handshake-policy.js";
import { ListPolicy } from "./list-policy.js";
import type { MethodPolicy, PolicySession } from "./policy-session.js";

export type { ClientSent, MethodPolicy, PolicySession } from "./policy-session.js";

/** A session's policies: the table by method, and how to forget what they learned. */
export interface Policies {
  table: Readonly<Record<string, MethodPolicy>>;
  /** What the server said may be stale (a new envelope, an unreadable message, a failure). */
  reset(): void;
}

/**
 * The methods the guard checks, and how. A new checked method is one more
 * entry here (its policy in a file of its own); a new listed kind is one
 * more GuardKind (guard-kinds.ts) through the one list policy.
 */
export function policiesFor(session: PolicySession): Policies {
  const tools = new ListPolicy(session, TOOLS_KIND);
  const prompts = new ListPolicy(session, PROMPTS_KIND);
  const templates = new ListPolicy(session, TEMPLATES_KIND);
  const resources = new ListPolicy(session, RESOURCES_KIND);
  const lists = [tools, prompts, templates, resources];
  const handshake = handshakePolicy(session);
  const listing = (policy: ListPolicy): MethodPolicy => ({
    answer: (answer, raw, sent) => policy.checkPage(answer, raw, sent.rawId, sent.firstPage),
  });
  return {
    table: {
      "tools/list": listing(tools),
      "tools/call": { request: (message, rawId) => tools.checkUse(message, rawId) },
      "notifications/tools/list_changed": { notification: (_m, raw) => tools.listChanged(raw) },
      "prompts/list": listing(prompts),
      "prompts/get": { request: (message, rawId) => prompts.checkUse(message, rawId) },
      "notifications/prompts/list_changed": {
        notification: (_m, raw) => prompts.listChanged(raw),
      },
      "resources/templates/list": listing(templates),
      "resources/list": listing(resources),
      "resources/read": { request: (message, rawId) => resources.checkUse(message, rawId) },
      // Both lists of the resources capability may have changed.
      "notifications/resources/list_changed": {
        notification: async (_m, raw) => {
          await Promise.all([templates.relist(), resources.relist()]);
          return raw;
        },
      },
      initialize: handshake,
      "server/discover": handshake,
    },
    reset: () => lists.forEach((list) => list.invalidate()),
  };
}
