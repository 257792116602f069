import { createHash } from "node:crypto";
import { allRules, type Rule, type Severity } from "../../core/findings/rules.js";
import { itemMessage } from "./item-groups.js";
import { inertJson, type ReportItem } from "./report-model.js";

/** The SARIF schema a report names (the OASIS standard's, errata 01). */
export const SARIF_SCHEMA =
  "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

/** The key of contractpin's partialFingerprints value. */
export const FINGERPRINT_KEY = "contractpinFinding/v1";

/**
 * GitHub code scanning's `security-severity` for each severity: it reads
 * over 9.0 as critical, 7.0 to 8.9 high, 4.0 to 6.9 medium, under 4.0 low.
 */
export const SECURITY_SEVERITY: Record<Severity, string> = {
  critical: "9.5",
  high: "8.0",
  medium: "5.5",
  low: "3.0",
};

/** Options of {@link renderSarif}. */
export interface SarifOptions {
  /** The lock as a URI reference: relative to the repository root when it is inside it, else a file: URI. */
  lockUri: string;
  /** runAutomationDetails.id: tells the runs of several locks in one repository apart. */
  automationId: string;
  /** contractpin's version, for tool.driver. */
  version: string;
  /** The run's exit code, for the invocation. */
  exitCode: number;
  /** A config file's URI reference, for a config finding (as `lockUri`); default: the file as named. */
  fileUri?: (file: string) => string;
}

/**
 * A SARIF 2.1.0 log of one run: every rule of the catalogue (shortDescription,
 * fullDescription, help as text and Markdown, security-severity), and one
 * result per finding, located in the lock at the line of the tool's entry
 * (the server's, for an added tool or an unreachable server), with a
 * fingerprint made of the rule, server, tool, pointer and digests, never of
 * a line number, so that an alert keeps its identity when the lock's lines
 * move.
 */
export function renderSarif(items: readonly ReportItem[], options: SarifOptions): string {
  const rules = allRules();
  const index = new Map(rules.map((r, i) => [r.id, i]));
  const log = {
    $schema: SARIF_SCHEMA,
    version: "2.1.0",
    runs: [
      {
        tool: {
          driver: {
            name: "contractpin",
            version: options.version,
            semanticVersion: options.version,
            informationUri: "https://github.com/contractpin/contractpin",
            rules: rules.map(ruleDescriptor),
          },
        },
        automationDetails: { id: options.automationId },
        invocations: [{ executionSuccessful: true, exitCode: options.exitCode }],
        results: items.map((item) => ({
          ruleId: item.finding.rule,
          ruleIndex: index.get(item.finding.rule)!,
          level: level(item),
          message: { text: itemMessage(item) },
          locations: [
            {
              physicalLocation: {
                artifactLocation: {
                  uri:
                    item.file === undefined
                      ? options.lockUri
                      : (options.fileUri?.(item.file) ?? item.file),
                },
                region: { startLine: item.line },
              },
              logicalLocations: [logicalLocation(item)],
            },
          ],
          partialFingerprints: { [FINGERPRINT_KEY]: fingerprint(item) },
          properties: {
            severity: item.finding.severity,
            server: item.server,
            ...(item.file === undefined ? {} : { file: item.file }),
            ...(item.tool === undefined ? {} : { tool: item.tool }),
            ...(item.finding.pointer === undefined ? {} : { pointer: item.finding.pointer }),
            failing: item.failing,
          },
        })),
      },
    ],
  };
  return inertJson(JSON.stringify(log, null, 2)) + "\n";
}

/** error for what fails the run and is not low; warning for a low one; note for what --allow-new allowed. */
function level(item: ReportItem): "error" | "warning" | "note" {
  if (!item.failing) return "note";
  return item.finding.severity === "low" ? "warning" : "error";
}

function ruleDescriptor(rule: Rule): Record<string, unknown> {
  return {
    id: rule.id,
    name: rule.id.replace(/(^|-)([a-z])/g, (_, _dash: string, c: string) => c.toUpperCase()),
    shortDescription: { text: rule.title },
    fullDescription: { text: rule.help },
    help: {
      text: `${rule.help} Severity: ${rule.severity}. Severity informs the reviewer; any drift fails verify.`,
      markdown: `**${rule.title}** (severity: ${rule.severity})\n\n${rule.help}\n\nSeverity informs the reviewer; any drift fails \`contractpin verify\`, whatever its severity.`,
    },
    defaultConfiguration: { level: rule.severity === "low" ? "warning" : "error" },
    properties: {
      "security-severity": SECURITY_SEVERITY[rule.severity],
      tags: ["security", "mcp", "contract-drift"],
      precision: "high",
    },
  };
}

function logicalLocation(item: ReportItem): Record<string, string> {
  if (item.file !== undefined) return { name: item.server || item.file, kind: "module" };
  return item.tool === undefined
    ? { name: item.server, kind: "module" }
    : { name: item.tool, fullyQualifiedName: `${item.server}/${item.tool}`, kind: "function" };
}

/**
 * The stable identity of a finding: SHA-256 of its rule, server, tool,
 * pointer and the tool's pinned and live digests (the server's pinned digest
 * for an unreachable server). The same change reported again keeps it; a
 * line moved in the lock does not change it.
 */
export function fingerprint(item: ReportItem): string {
  const parts = [
    item.finding.rule,
    item.server,
    ...(item.file === undefined ? [] : [item.file]),
    item.tool ?? null,
    item.finding.pointer ?? null,
    item.pinned ?? null,
    item.live ?? null,
  ];
  return createHash("sha256").update(JSON.stringify(parts)).digest("hex");
}
