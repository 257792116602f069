import { summarize, type ServerFinding } from "../../core/contract/compare.js";
import { canonicalize } from "../../core/json/canonical-json.js";
import type { Finding } from "../../core/findings/finding.js";
import type { JsonValue } from "../../core/json/json-value.js";
import { escapeHiddenJson, prettyJson } from "../../core/json/pretty-json.js";
import type { ServerExplained } from "../../engine/explain-server.js";
import { driftedFields } from "./changed-fields.js";
import type { ConfigReport } from "../../config/config-set.js";

/** The identifier of the --json report's schema (documented in docs/reports.md). */
export const REPORT_FORMAT = "contractpin-verify/1";

/** The longest `before`/`after` value (in canonical JSON characters) a finding carries. */
export const MAX_FINDING_VALUE_CHARS = 200;

/**
 * One stable JSON object with every server's status and findings. Keys added
 * since the first version (`findings`, `snapshot`, `renamed_from`,
 * `renamed_to`, `fields_confirmed`, `unconfirmed_fields`, `written`) are new members
 * only: a reader of the first version is not affected. `changed_fields` is
 * empty when the changed fields are unknown, as it was without field digests. Every character a terminal could act on or hide is written as a
 * `\u` escape, so the report holds none raw.
 */
export function renderVerifyJson(
  lockPath: string,
  findings: readonly ServerFinding[],
  meta: {
    allowNew: boolean;
    exitCode: number;
    /** For `upgrade --write`: the candidates were taken into the lock (`written: true`). */
    written?: boolean;
    explained?: ReadonlyMap<string, ServerExplained>;
    /** For `diff`: the two sides (`lockPath` is the one that is a lock, NEW first). */
    old?: string;
    new?: string;
    /** For `verify`: the client configs checked (SPEC.md 12); a new member only. */
    configs?: ConfigReport;
  },
): string {
  const report = {
    format: REPORT_FORMAT,
    lock: lockPath,
    old: meta.old,
    new: meta.new,
    exit_code: meta.exitCode,
    written: meta.written === true ? true : undefined,
    allow_new: meta.allowNew,
    summary: summarize(findings),
    servers: findings.map((server) => {
      const explained = meta.explained?.get(server.name);
      return {
        name: server.name,
        status: server.status,
        error: server.error,
        detail: server.detail,
        pinned_digest: server.pinnedDigest,
        live_digest: server.liveDigest,
        findings:
          explained !== undefined && explained.findings.length > 0
            ? explained.findings.map(findingJson)
            : undefined,
        tools: server.tools.map((tool) => {
          const detail = explained?.tools.get(tool.name);
          const fields = tool.status === "drifted" ? driftedFields(tool, detail) : undefined;
          return {
            name: tool.name,
            status: tool.status,
            pinned: tool.pinned,
            live: tool.live,
            // Empty when unknown, as in the first version (which read the field digests).
            // Side pins that moved are known even when the contract's fields are not.
            changed_fields:
              fields === undefined ? undefined : (fields.confirmed ?? fields.sidePins ?? []),
            fields_confirmed: fields === undefined ? undefined : fields.confirmed !== undefined,
            unconfirmed_fields:
              fields === undefined || fields.confirmed !== undefined
                ? undefined
                : fields.unconfirmed,
            snapshot:
              tool.status === "drifted" || tool.status === "removed"
                ? detail?.before !== undefined
                : undefined,
            renamed_from: detail?.renamedFrom,
            renamed_to: detail?.renamedTo,
            findings: detail === undefined ? undefined : detail.findings.map(findingJson),
          };
        }),
        // SPEC.md 10.6: a server that pins its surface; a new member only.
        // (configs, SPEC.md 12, follow the servers.)
        surface: server.surface?.map((f) => ({
          part: f.part,
          key: f.key,
          status: f.status,
          pinned: f.pinned,
          live: f.live,
          changed_fields: f.fields,
        })),
      };
    }),
    configs:
      meta.configs === undefined
        ? undefined
        : {
            files: meta.configs.files,
            findings: meta.configs.findings.map(({ file, finding }) => ({
              file,
              ...(finding.server === undefined ? {} : { server: finding.server }),
              ...findingWithin(finding, Infinity),
            })),
          },
  };
  return escapeHiddenJson(prettyJson(report)) + "\n";
}

/** A finding as the report carries it: long values left out (`before_omitted`/`after_omitted`). */
export function findingJson(finding: Finding): Record<string, JsonValue> {
  return findingWithin(finding, MAX_FINDING_VALUE_CHARS);
}

/** A finding with values up to `maxChars` long (a launch line is carried whole: Infinity). */
function findingWithin(finding: Finding, maxChars: number): Record<string, JsonValue> {
  const out: Record<string, JsonValue> = { rule: finding.rule, severity: finding.severity };
  if (finding.pointer !== undefined) out["pointer"] = finding.pointer;
  for (const key of ["before", "after"] as const) {
    const value = finding[key];
    if (value === undefined) continue;
    if (canonicalize(value).length <= maxChars) out[key] = value;
    else out[`${key}_omitted`] = true;
  }
  return out;
}
