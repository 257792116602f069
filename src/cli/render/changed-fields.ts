import type { ToolFinding } from "../../core/contract/compare.js";
import type { ToolExplained } from "../../engine/explain-server.js";

/** What a report can say about which fields of a drifted tool changed. */
export interface DriftedFields {
  /**
   * The changed fields, computed from the tool's two contracts (explainTools),
   * then the side pins that moved (SPEC.md 13, `_meta.ui.visibility`); absent
   * when the contract moved and either contract is unknown.
   */
  confirmed?: readonly string[];
  /**
   * Without both contracts: the fields whose field digests differ between the
   * two sides. Field digests are advisory (spec 4.2) and a hand-edited lock
   * can name any field, so these are never reported as what changed.
   */
  unconfirmed: readonly string[];
  /**
   * When `confirmed` is absent: the side pins that moved, which the lock's
   * own digests confirm without any contract.
   */
  sidePins?: readonly string[];
}

/** The changed fields of a drifted tool: confirmed by both contracts, or only claimed by field digests. */
export function driftedFields(tool: ToolFinding, detail: ToolExplained | undefined): DriftedFields {
  const pins = tool.sidePins ?? [];
  // One tool digest is one contract: only side pins moved.
  if (tool.pinned === tool.live) return { confirmed: pins, unconfirmed: [] };
  if (detail?.fields !== undefined)
    return { confirmed: [...detail.fields, ...pins], unconfirmed: [] };
  const unknown: DriftedFields = { unconfirmed: tool.fields ?? [] };
  if (pins.length > 0) unknown.sidePins = pins;
  return unknown;
}

/**
 * What follows `changed: ` in a report: the confirmed fields, else
 * `fields unknown`, with the names the field digests claim marked as
 * unconfirmed (after the side pins that moved, which are known).
 */
export function driftedFieldsText(fields: DriftedFields): string {
  if (fields.confirmed !== undefined && fields.confirmed.length > 0)
    return fields.confirmed.join(", ");
  const pins = fields.sidePins ?? [];
  return [...pins, unknownFieldsText(fields.unconfirmed)].join(", ");
}

/** `fields unknown`, and the names field digests claim, marked unconfirmed. */
export function unknownFieldsText(claimed: readonly string[]): string {
  if (claimed.length === 0) return "fields unknown";
  return `fields unknown (unconfirmed by any snapshot: ${claimed.join(", ")})`;
}
