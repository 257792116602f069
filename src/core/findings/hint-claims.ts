import type { Contract } from "../contract/contract.js";
import { getMember, isJsonObject, type JsonValue } from "../json/json-value.js";
import { hint, raw } from "./annotations.js";
import type { FindingDraft } from "./finding.js";
import { searchable } from "./text-checks.js";

// Verbs that say a tool changes something, where a verb stands: at the start
// of a sentence ("Write a file"), or after a subject or a joining word ("it
// deletes", "Move or rename"), so that a noun ("progress updates") and a
// negation ("does not write") do not count.
const VERB_PLACE =
  /(?<=(?:^|[.!?:;,\n]\s*|\b(?:and|or|then|to|will|can|may|also|it|tool|that|which|this|server)\s+))/u
    .source;
const WRITES = new RegExp(
  `${VERB_PLACE}\\b(?:(?:over)?writ(?:e|es|ing)|delet(?:e|es|ing)|remov(?:e|es|ing)|creat(?:e|es|ing)|mov(?:e|es|ing)|renam(?:e|es|ing)|modif(?:y|ies|ying)|edit(?:s|ing)?|updat(?:e|es|ing)|append(?:s|ing)?|insert(?:s|ing)?|sav(?:e|es|ing)|upload(?:s|ing)?|replac(?:e|es|ing)|truncat(?:e|es|ing)|eras(?:e|es|ing)|drop(?:s|ping)?|destroy(?:s|ing)?|purg(?:e|es|ing)|wip(?:e|es|ing))\\b`,
  "giu",
);
const DESTROYS = /^(?:overwrit|delet|remov|mov|renam|replac|truncat|eras|drop|destroy|purg|wip)/iu;
// Input properties that only a tool that writes takes.
const WRITE_PROPERTIES = new Set(
  "content contents destination dest newtext new_text edits overwrite append data_to_write".split(
    " ",
  ),
);
const DESTROY_PROPERTIES = new Set(["destination", "dest", "overwrite"]);
const MAX_EVIDENCE = 5;

/**
 * A tool that newly claims to be safe while what it says contradicts the
 * claim: `readOnlyHint` now true (before not) while its name, description or
 * input property names say it writes; `destructiveHint` now false (before true
 * or absent, whose default is true), not read-only, while they say it deletes
 * or overwrites. Clients may auto-approve such a tool. An absent `before`
 * (an added tool) has every hint at its default. The finding's `before` and
 * `after` are the hint's old and new values as served.
 */
export function claimFindings(before: JsonValue | undefined, after: Contract): FindingDraft[] {
  const drafts: FindingDraft[] = [];
  const now = after.annotations;
  if (hint(now, "readOnlyHint") === true && hint(before, "readOnlyHint") !== true) {
    if (writeEvidence(after, false).length > 0) drafts.push(claim(before, now, "readOnlyHint"));
  } else if (
    hint(now, "readOnlyHint") !== true &&
    hint(now, "destructiveHint") === false &&
    hint(before, "destructiveHint") !== false
  ) {
    if (writeEvidence(after, true).length > 0) drafts.push(claim(before, now, "destructiveHint"));
  }
  return drafts;
}

/**
 * The words of a tool's name, description and top-level input property names
 * that say it writes (or, with `destroys`, that it deletes or overwrites),
 * matched as the text rules match (NFKC, invisible characters removed), and
 * only where a verb stands (VERB_PLACE). At most five.
 */
export function writeEvidence(tool: Contract, destroys: boolean): string[] {
  const found: string[] = [];
  const add = (word: string) => {
    if (!found.includes(word) && found.length < MAX_EVIDENCE) found.push(word);
  };
  const texts = [
    nameWords(tool.name),
    typeof tool.description === "string" ? tool.description : "",
  ];
  for (const text of texts) {
    for (const m of searchable(text).matchAll(WRITES)) {
      if (!destroys || DESTROYS.test(m[0])) add(m[0].toLowerCase());
    }
  }
  const properties = isJsonObject(tool.inputSchema)
    ? getMember(tool.inputSchema, "properties")
    : undefined;
  if (isJsonObject(properties)) {
    for (const key of Object.keys(properties)) {
      const plain = key.toLowerCase();
      if ((destroys ? DESTROY_PROPERTIES : WRITE_PROPERTIES).has(plain)) add(key);
    }
  }
  return found;
}

/** A tool name as words: `write_file`, `writeFile` and `write-file` all say "write file". */
function nameWords(name: string): string {
  return name.replace(/([a-z])([A-Z])/gu, "$1 $2").replace(/[_.-]+/gu, " ");
}

function claim(
  before: JsonValue | undefined,
  now: JsonValue | undefined,
  key: "readOnlyHint" | "destructiveHint",
): FindingDraft {
  const rule =
    key === "readOnlyHint" ? "annotation-readonly-claimed" : "annotation-nondestructive-claimed";
  const d: FindingDraft = { rule, pointer: `/annotations/${key}` };
  const old = raw(before, key);
  const value = raw(now, key);
  if (old !== undefined) d.before = old;
  if (value !== undefined) d.after = value;
  return d;
}
