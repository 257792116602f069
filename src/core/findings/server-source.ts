import type { JsonValue } from "../json/json-value.js";
import type { ServerSource } from "../source/server-source.js";
import { sameJson } from "./diff-json.js";
import { toFinding, type Finding } from "./finding.js";
import { commandLookAlike, type PackageOf } from "./launch-diff.js";

// Every key of a lock's server object that says how to reach the server (spec 5).
const SOURCE_KEYS = ["transport", "command", "env", "cwd", "url", "headers", "path"] as const;

/**
 * How the source of server `server` changed between two locks: one
 * `server-source-changed` finding per key (transport, command, env, cwd, url,
 * headers, path) whose value differs, was added or was removed, with the two
 * values; and a `package-name-confusable` finding (critical) when the new
 * command runs a package whose name only looks like the old one's
 * (`packageOf` reads it, launch-diff.ts). Equal sources give none. Pure.
 *
 * @param rule the rule of each per-key finding (default `server-source-changed`;
 *   `config-launch-changed` for a config entry against the lock).
 */
export function sourceFindings(
  server: string,
  before: ServerSource,
  after: ServerSource,
  packageOf: PackageOf,
  rule: "server-source-changed" | "config-launch-changed" = "server-source-changed",
): Finding[] {
  const findings: Finding[] = [];
  for (const key of SOURCE_KEYS) {
    const old = (before as unknown as Record<string, JsonValue | undefined>)[key];
    const now = (after as unknown as Record<string, JsonValue | undefined>)[key];
    if (old === undefined && now === undefined) continue;
    if (old !== undefined && now !== undefined && sameJson(old, now)) continue;
    const draft: Parameters<typeof toFinding>[0] = {
      rule,
      pointer: `/${key}`,
    };
    if (old !== undefined) draft.before = old;
    if (now !== undefined) draft.after = now;
    findings.push(toFinding(draft, undefined, server));
  }
  const command = (s: ServerSource) => (s.transport === "stdio" ? s.command : undefined);
  const lookAlike = commandLookAlike(command(before), command(after), packageOf);
  if (lookAlike !== undefined) {
    const draft = {
      rule: "package-name-confusable",
      pointer: `/command/${lookAlike.argIndex}`,
      before: lookAlike.pinned,
      after: lookAlike.other,
    } as const;
    findings.unshift(toFinding(draft, undefined, server));
  }
  return findings;
}
