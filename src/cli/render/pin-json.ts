import type { ServerFinding } from "../../core/contract/compare.js";
import type { Finding } from "../../core/findings/finding.js";
import type { PinnedServer } from "../../core/lock/lock.js";
import { escapeHiddenJson, prettyJson } from "../../core/json/pretty-json.js";
import { countBySeverity, toolFindingJson } from "./audit-text.js";

/** The identifier of the --json output of add, init and update (documented in the README). */
export const PIN_FORMAT = "contractpin-pin/1";

/** The --json line of the pin commands' help. */
export const PIN_JSON_HELP = `  --json               print one JSON object (format ${PIN_FORMAT}) instead of text:
                       each pinned server's digest, the tools a re-pin changed,
                       and what the findings rules found in it`;

/** One server a pin command pinned: its lock entry, what moved (a re-pin), what the rules found. */
export interface PinnedReport {
  name: string;
  server: PinnedServer;
  /** For a re-pin: the comparison of the old pin with the new. */
  change?: ServerFinding;
  findings: readonly Finding[];
}

/**
 * The --json output of `add`, `init` and `update`: per server, its digest and
 * tool count, the tools a re-pin changed, and the first-sight findings (the
 * same members as `verify --json`'s, plus `tool`); `written` is false when
 * the lock did not change (update). Every character a terminal
 * could act on or hide is escaped.
 */
export function renderPinJson(
  lockFile: string,
  servers: readonly PinnedReport[],
  written = true,
): string {
  const report = {
    format: PIN_FORMAT,
    lock: lockFile,
    written,
    summary: countBySeverity(servers.flatMap((s) => s.findings)),
    servers: servers.map(({ name, server, change, findings }) => ({
      name,
      tool_count: server.tool_count,
      digest: server.digest,
      previous_digest: change?.pinnedDigest,
      changed_tools: change?.tools
        .filter((t) => t.status !== "unchanged")
        .map((t) => ({ name: t.name, status: t.status })),
      findings: findings.map(toolFindingJson),
    })),
  };
  return escapeHiddenJson(prettyJson(report)) + "\n";
}
