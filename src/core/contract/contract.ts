import { ContractpinError } from "../errors.js";
import { getMember, isJsonObject, type JsonValue } from "../json/json-value.js";
import { MAX_TOOL_NAME_CHARS } from "../limits.js";

/** The contract fields, in canonical (UTF-16) key order. */
export const CONTRACT_FIELDS = [
  "annotations",
  "description",
  "inputSchema",
  "name",
  "outputSchema",
] as const;

/** A member of the contract object (spec 2). */
export type ContractField = (typeof CONTRACT_FIELDS)[number];

/**
 * The contract of one tool (spec 2): what a model reads when it decides to
 * call it. `description` and `inputSchema` are null when absent; the optional
 * fields are present only when the tool defines them with a non-null value.
 */
export interface Contract {
  name: string;
  description: JsonValue;
  inputSchema: JsonValue;
  outputSchema?: JsonValue;
  annotations?: JsonValue;
}

/**
 * Projects a tool definition from a tools/list result onto its contract
 * (spec 2). Every other member (title, _meta, icons, vendor keys) is ignored;
 * the contents of the kept fields are never rewritten.
 *
 * @throws ContractpinError TOOL_NOT_OBJECT, or TOOL_NAME_INVALID when `name`
 *   is missing, not a string, or longer than {@link MAX_TOOL_NAME_CHARS} characters.
 */
export function contractOf(tool: JsonValue, where = "tool"): Contract {
  if (!isJsonObject(tool)) {
    throw new ContractpinError("TOOL_NOT_OBJECT", `${where} is ${describe(tool)}, not an object`);
  }
  const name = getMember(tool, "name");
  if (typeof name !== "string") {
    const problem =
      name === undefined ? "has no name" : `has a name that is ${describe(name)}, not a string`;
    throw new ContractpinError("TOOL_NAME_INVALID", `${where} ${problem}`);
  }
  // Characters are code points: 1,024 emoji are 2,048 UTF-16 units. Only a
  // long name is counted, and never past twice the limit in units.
  if (
    name.length > MAX_TOOL_NAME_CHARS &&
    (name.length > 2 * MAX_TOOL_NAME_CHARS || countCodePoints(name) > MAX_TOOL_NAME_CHARS)
  ) {
    throw new ContractpinError(
      "TOOL_NAME_INVALID",
      `${where} has a name longer than ${MAX_TOOL_NAME_CHARS} characters, the most contractpin accepts (MCP recommends at most 128)`,
    );
  }
  const contract: Contract = {
    name,
    description: getMember(tool, "description") ?? null,
    inputSchema: getMember(tool, "inputSchema") ?? null,
  };
  const outputSchema = getMember(tool, "outputSchema");
  if (outputSchema !== undefined && outputSchema !== null) contract.outputSchema = outputSchema;
  const annotations = getMember(tool, "annotations");
  if (annotations !== undefined && annotations !== null) contract.annotations = annotations;
  return contract;
}

/** The number of Unicode characters (code points) of a well-formed string. */
export function countCodePoints(s: string): number {
  let count = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    // A high surrogate followed by a low one is one character (names are well-formed here).
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}

function describe(value: JsonValue): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}
