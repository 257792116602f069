import { summarize, type ServerFinding } from "../../core/compare.js";
import { prettyJson } from "../../core/pretty-json.js";

/** The identifier of the --json report's schema (documented in the README). */
export const REPORT_FORMAT = "contractpin-verify/1";

/** One stable JSON object with every server's status and findings. */
export function renderVerifyJson(
  lockPath: string,
  findings: readonly ServerFinding[],
  meta: { allowNew: boolean; exitCode: number },
): string {
  const report = {
    format: REPORT_FORMAT,
    lock: lockPath,
    exit_code: meta.exitCode,
    allow_new: meta.allowNew,
    summary: summarize(findings),
    servers: findings.map((server) => ({
      name: server.name,
      status: server.status,
      error: server.error,
      detail: server.detail,
      pinned_digest: server.pinnedDigest,
      live_digest: server.liveDigest,
      tools: server.tools.map((tool) => ({
        name: tool.name,
        status: tool.status,
        pinned: tool.pinned,
        live: tool.live,
        changed_fields: tool.fields,
      })),
    })),
  };
  return prettyJson(report) + "\n";
}
