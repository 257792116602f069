import type { Contract } from "../contract.js";
import { classifyServer } from "./classify.js";
import type { Finding } from "./finding.js";
import { SEVERITIES, type Severity } from "./rules.js";

/**
 * What the rules find in a server's contracts on first sight: every finding
 * they would give if the server had been empty before, with the same ids and
 * severities, except `tool-added` itself (every tool of a first pin is new).
 * Grouped by tool, tools sorted by name. Pure.
 */
export function firstSightFindings(server: string, contracts: readonly Contract[]): Finding[] {
  return classifyServer([], contracts, { server }).filter((f) => f.rule !== "tool-added");
}

/** True when `finding` is at least as severe as `threshold`. */
export function atOrAbove(finding: Finding, threshold: Severity): boolean {
  return SEVERITIES.indexOf(finding.severity) <= SEVERITIES.indexOf(threshold);
}

/** A severity named on the command line, or undefined when it is not one. */
export function severityNamed(name: string): Severity | undefined {
  return (SEVERITIES as readonly string[]).includes(name) ? (name as Severity) : undefined;
}
