import { ContractpinError } from "./errors.js";
import { getMember, isJsonObject, type JsonValue } from "./json-value.js";

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
 *   is missing or not a string.
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

function describe(value: JsonValue): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}
