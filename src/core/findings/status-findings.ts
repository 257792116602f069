// Findings that state what compare found, with no rule to run: a server
// that could not be read, a drift no snapshot explains, a side pin that
// moved. Apart from the rules (classify.ts), so that a report that only
// states them does not load the text rules, whose patterns cost a clean run
// milliseconds to build. Pure.
import { appendPointer } from "../json/json-pointer.js";
import { TOOLS } from "../contract/kinds.js";
import { toFinding, type Finding } from "./finding.js";

/** The finding of a server that could not be read; `message` (server text, raw) goes in `after`. */
export function unreachableFinding(server: string, message?: string): Finding {
  return toFinding({ rule: "server-unreachable", after: message }, undefined, server);
}

/**
 * The finding of a drifted tool that cannot be classified (no snapshot of its
 * pinned contract): `tool-drifted`, with the names of the fields whose field
 * digests differ in `after`. Those digests are advisory (spec 4.2): the names
 * are unconfirmed, never what a report says changed.
 */
export function unexplainedDriftFinding(
  server: string,
  tool: string,
  fields: readonly string[],
): Finding {
  return toFinding({ rule: "tool-drifted", after: [...fields] }, tool, server);
}

/**
 * The findings of a drifted tool whose side pins moved (SPEC.md 13), each
 * the rule the kind table names for its pin (`tool-visibility-changed`),
 * pointing at the member. The lock records only a digest of the value, so
 * neither value is shown: the pin says that it moved, the live tool what it
 * is now.
 */
export function sidePinFindings(server: string, tool: string, moved: readonly string[]): Finding[] {
  return TOOLS.sidePins
    .filter((pin) => moved.includes(pin.field))
    .map((pin) =>
      toFinding({ rule: pin.rule, pointer: pin.path.reduce(appendPointer, "") }, tool, server),
    );
}
