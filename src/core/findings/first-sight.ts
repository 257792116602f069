import type { Contract } from "../contract.js";
import { classifyServer } from "./classify.js";
import type { Finding } from "./finding.js";

/**
 * What the rules find in a server's contracts on first sight: every finding
 * they would give if the server had been empty before, with the same ids and
 * severities, except `tool-added` itself (every tool of a first pin is new).
 * Grouped by tool, tools sorted by name. Pure.
 */
export function firstSightFindings(server: string, contracts: readonly Contract[]): Finding[] {
  return classifyServer([], contracts, { server }).filter((f) => f.rule !== "tool-added");
}

/**
 * The findings of `findings` that `shown` does not hold already (the same
 * tool, rule and pointer): a re-pin shows what it accepted, with its
 * findings, before its review of what it pins, which need not say them
 * twice. Pure.
 */
export function notShown(findings: readonly Finding[], shown: Iterable<Finding>): Finding[] {
  const key = (f: Finding) => JSON.stringify([f.tool ?? null, f.rule, f.pointer ?? null]);
  const seen = new Set([...shown].map(key));
  return findings.filter((f) => !seen.has(key(f)));
}

/** Every finding a re-pin's change report shows for one server. */
export function shownFindings(
  explained:
    | { tools: ReadonlyMap<string, { findings: readonly Finding[] }>; findings: readonly Finding[] }
    | undefined,
): Finding[] {
  if (explained === undefined) return [];
  return [...explained.findings, ...[...explained.tools.values()].flatMap((t) => t.findings)];
}
