import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseJson } from "../../../src/core/json/strict-json.js";
import { toolsFromDump } from "../../../src/core/contract/tools-list.js";
import { throwsCode } from "../../helpers/assert-code.js";

const dump = (text: string) => toolsFromDump(parseJson(text));

describe("toolsFromDump", () => {
  it("concatenates the pages of a paginated dump in order", () => {
    const tools = dump(
      '[{"tools":[{"name":"a"}],"nextCursor":"1"},{"tools":[{"name":"b"},{"name":"c"}],"nextCursor":"2"},{"tools":[]}]',
    );
    assert.deepEqual(
      tools.map((t) => (t as { name: string }).name),
      ["a", "b", "c"],
    );
  });

  it("treats a null nextCursor as the end", () => {
    assert.equal(dump('{"tools":[{"name":"a"}],"nextCursor":null}').length, 1);
  });

  const bad: [string, string, RegExp][] = [
    ["an empty array", "[]", /empty array/],
    [
      "a page missing its cursor before the last",
      '[{"tools":[]},{"tools":[]}]',
      /\$\[0\] has no nextCursor, but 1 more page/,
    ],
    [
      "a last page with a cursor",
      '[{"tools":[],"nextCursor":"a"},{"tools":[],"nextCursor":"b"}]',
      /\$\[1\] is the last page but has a nextCursor/,
    ],
    [
      "a cursor that is not a string",
      '{"tools":[],"nextCursor":5}',
      /\$\.nextCursor is not a string/,
    ],
    ["tools that is not an array", '{"tools":{}}', /tools member that is not an array/],
    ["a JSON-RPC message with no result", '{"jsonrpc":"2.0","id":1}', /without a result/],
    ["an array of tools rather than pages", '[{"name":"a"}]', /\$\[0\] has no tools array/],
    ["a scalar", "42", /is not a tools\/list result/],
  ];
  for (const [what, text, message] of bad) {
    it(`rejects ${what}`, () => {
      assert.match(
        throwsCode(() => dump(text), "DUMP_INVALID"),
        message,
      );
    });
  }
});
