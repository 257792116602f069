// Labels that mean what they say (issue 23): a property added to a schema that
// already accepted it is no widening; declaring more danger is not high; a
// tool that newly claims to be safe while it says it writes is; prose that
// holds a plain-word tool name does not mention it.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Contract } from "../../../src/core/contract/contract.js";
import { classifyServer, classifyTool } from "../../../src/core/findings/classify.js";
import type { JsonValue } from "../../../src/core/json/json-value.js";

const withSchema = (inputSchema: JsonValue): Contract => ({
  name: "read_file",
  description: "Read a file.",
  inputSchema,
});
const rulesOf = (before: Contract | undefined, after: Contract, others: string[] = []) =>
  classifyTool(before, after, { otherTools: others }).map((f) => `${f.severity} ${f.rule}`);

const TYPED = {
  type: "object",
  properties: { path: { type: "string" }, head: { type: "number" } },
  required: ["path"],
};

describe("input-property-added only when the old schema did not accept the property", () => {
  const cases: [string, JsonValue, JsonValue, string[]][] = [
    [
      "a schema of only $schema (server-filesystem 2025.7.1) that gains typed properties",
      { $schema: "http://json-schema.org/draft-07/schema#" },
      { $schema: "http://json-schema.org/draft-07/schema#", ...TYPED },
      ["low input-schema-changed"],
    ],
    [
      "an object schema with no properties, additional ones open",
      { type: "object" },
      TYPED,
      ["low input-schema-changed"],
    ],
    [
      "additionalProperties true and no properties",
      { type: "object", additionalProperties: true },
      TYPED,
      ["low input-schema-changed"],
    ],
    [
      "a schema that lists its properties, even with additional ones open",
      { type: "object", properties: { path: { type: "string" } } },
      TYPED,
      ["high input-property-added"],
    ],
    [
      "additionalProperties false and no properties",
      { type: "object", additionalProperties: false },
      { type: "object", properties: { note: {} }, additionalProperties: false },
      ["high input-property-added"],
    ],
    [
      "an additionalProperties schema the new property keeps",
      { type: "object", additionalProperties: { type: "string" } },
      {
        type: "object",
        properties: { note: { type: "string", maxLength: 9 } },
        additionalProperties: { type: "string" },
      },
      ["low input-schema-changed"],
    ],
    [
      "an additionalProperties schema the new property widens",
      { type: "object", additionalProperties: { type: "string" } },
      {
        type: "object",
        properties: { note: { type: ["string", "number"] } },
        additionalProperties: { type: "string" },
      },
      ["medium input-type-widened"],
    ],
  ];
  for (const [name, before, after, want] of cases) {
    it(name, () => {
      assert.deepEqual(rulesOf(withSchema(before), withSchema(after)), want);
    });
  }
});

const hinted = (description: string, annotations: JsonValue, name = "tool"): Contract => ({
  name,
  description,
  inputSchema: { type: "object", properties: { path: { type: "string" } } },
  annotations,
});

describe("behaviour hints", () => {
  it("destructiveHint false to true declares more danger: medium, not high", () => {
    const before = hinted("Move a file.", { destructiveHint: false });
    const after = hinted("Move a file.", { destructiveHint: true });
    assert.deepEqual(rulesOf(before, after), ["medium annotation-destructive-added"]);
  });

  const claims: [string, Contract, Contract, string[]][] = [
    [
      "readOnlyHint newly true on a tool that says it writes",
      hinted("Write the content to a file.", {}),
      hinted("Write the content to a file.", { readOnlyHint: true }),
      ["high annotation-readonly-claimed"],
    ],
    [
      "readOnlyHint newly true on a tool whose name says it deletes",
      hinted("Handles the entries.", {}, "delete_entries"),
      hinted("Handles the entries.", { readOnlyHint: true }, "delete_entries"),
      ["high annotation-readonly-claimed"],
    ],
    [
      "readOnlyHint newly true on a tool with a `destination` argument",
      {
        ...hinted("Handles files.", {}),
        inputSchema: { type: "object", properties: { destination: { type: "string" } } },
      },
      {
        ...hinted("Handles files.", { readOnlyHint: true }),
        inputSchema: { type: "object", properties: { destination: { type: "string" } } },
      },
      ["high annotation-readonly-claimed"],
    ],
    [
      "readOnlyHint newly true on a tool whose verb hides a zero-width space",
      hinted("Del\u200Bete the file.", {}),
      hinted("Del\u200Bete the file.", { readOnlyHint: true }),
      ["high annotation-readonly-claimed"],
    ],
    [
      "readOnlyHint newly true on a reader",
      hinted("Read a file. Reports progress updates; it does not modify anything.", {}),
      hinted("Read a file. Reports progress updates; it does not modify anything.", {
        readOnlyHint: true,
      }),
      ["low annotation-changed"],
    ],
    [
      "destructiveHint newly false on a tool that says it overwrites",
      hinted("Save a file; it overwrites an existing one.", { destructiveHint: true }),
      hinted("Save a file; it overwrites an existing one.", { destructiveHint: false }),
      ["high annotation-nondestructive-claimed"],
    ],
    [
      "destructiveHint newly false on a tool that only creates",
      hinted("Create a new directory.", {}),
      hinted("Create a new directory.", { destructiveHint: false }),
      ["low annotation-changed"],
    ],
  ];
  for (const [name, before, after, want] of claims) {
    it(name, () => assert.deepEqual(rulesOf(before, after), want));
  }

  it("an added tool that claims readOnlyHint while it says it writes", () => {
    const tool = hinted("Delete the file at path.", { readOnlyHint: true });
    assert.deepEqual(rulesOf(undefined, tool), [
      "medium tool-added",
      "high annotation-readonly-claimed",
    ]);
  });
});

describe("a plain-word tool name in prose is not a mention", () => {
  const tools = (description: string): Contract[] => [
    { name: "weather", description, inputSchema: { type: "object" } },
    { name: "zip", description: "Zip files.", inputSchema: { type: "object" } },
    { name: "send_mail", description: "Send mail.", inputSchema: { type: "object" } },
  ];
  const mentions = (description: string) =>
    classifyServer([], tools(description))
      .filter((f) => f.rule === "description-tool-mention")
      .map((f) => f.after);
  it("'City name or zip code' names no tool", () => {
    assert.deepEqual(mentions("City name or zip code."), []);
  });
  it("a quoted plain word, one followed by 'tool', and an identifier do", () => {
    assert.deepEqual(mentions("Then pass it to `zip`."), [["zip"]]);
    assert.deepEqual(mentions("First use the zip tool."), [["zip"]]);
    assert.deepEqual(mentions("Then send it with send_mail."), [["send_mail"]]);
  });
  it("a sibling named without steering the model to it is no finding (issue 38)", () => {
    assert.deepEqual(mentions("DEPRECATED: Use send_mail instead."), []);
    assert.deepEqual(mentions("Like the zip tool, but for weather."), []);
    // The same name with an order to call it first still is.
    assert.deepEqual(mentions("DEPRECATED. Call send_mail first."), [["send_mail"]]);
  });
});
