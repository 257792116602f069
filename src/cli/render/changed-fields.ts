import type { ToolFinding } from "../../core/contract/compare.js";
import type { ContractField } from "../../core/contract/contract.js";
import type { ToolExplained } from "../../engine/explain.js";

/** What a report can say about which fields of a drifted tool changed. */
export interface DriftedFields {
  /**
   * The changed fields, computed from the tool's two contracts (explainTools);
   * absent when either contract is unknown.
   */
  confirmed?: readonly ContractField[];
  /**
   * Without both contracts: the fields whose field digests differ between the
   * two sides. Field digests are advisory (spec 4.2) and a hand-edited lock
   * can name any field, so these are never reported as what changed.
   */
  unconfirmed: readonly ContractField[];
}

/** The changed fields of a drifted tool: confirmed by both contracts, or only claimed by field digests. */
export function driftedFields(tool: ToolFinding, detail: ToolExplained | undefined): DriftedFields {
  if (detail?.fields !== undefined) return { confirmed: detail.fields, unconfirmed: [] };
  return { unconfirmed: tool.fields ?? [] };
}

/**
 * What follows `changed: ` in a report: the confirmed fields, else
 * `fields unknown`, with the names the field digests claim marked as
 * unconfirmed.
 */
export function driftedFieldsText(fields: DriftedFields): string {
  if (fields.confirmed !== undefined && fields.confirmed.length > 0)
    return fields.confirmed.join(", ");
  return unknownFieldsText(fields.unconfirmed);
}

/** `fields unknown`, and the names field digests claim, marked unconfirmed. */
export function unknownFieldsText(claimed: readonly string[]): string {
  if (claimed.length === 0) return "fields unknown";
  return `fields unknown (unconfirmed by any snapshot: ${claimed.join(", ")})`;
}
