import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { stripJsonc } from "../../src/config/jsonc.js";

const bytes = (s: string) => new TextEncoder().encode(s).length;

describe("stripJsonc", () => {
  it("blanks line and block comments, keeping line breaks and byte offsets", () => {
    const text = '{\n  // é comment\n  "a": /* x\n y */ 1\n}';
    const plain = stripJsonc(text);
    assert.equal(bytes(plain), bytes(text));
    assert.equal(plain.split("\n").length, text.split("\n").length);
    assert.deepEqual(JSON.parse(plain), { a: 1 });
    assert.equal(
      bytes(plain.slice(0, plain.indexOf("1"))),
      bytes(text.slice(0, text.indexOf("1"))),
    );
  });

  it("in utf16 mode, keeps string offsets instead, so spans point into the original text", () => {
    const text = '{\n  // café ✓ 😀\n  "a": /* é */ [1,],\n}';
    const plain = stripJsonc(text, "utf16");
    assert.equal(plain.length, text.length);
    assert.equal(plain.indexOf("[1"), text.indexOf("[1"));
    assert.deepEqual(JSON.parse(plain), { a: [1] });
  });

  it("removes trailing commas before } and ], across whitespace and comments", () => {
    const plain = stripJsonc('{"a": [1, 2, ], "b": {"c": 3, // last\n }, }');
    assert.deepEqual(JSON.parse(plain), { a: [1, 2], b: { c: 3 } });
  });

  it("leaves comment and comma look-alikes inside strings alone", () => {
    const text = '{"url": "http://x/*y*/", "s": "a,]", "q": "\\" // not a comment"}';
    assert.equal(stripJsonc(text), text);
  });

  it("leaves an unterminated block comment for the parser to report", () => {
    assert.equal(stripJsonc('{"a": 1 /* open'), '{"a": 1 /* open');
  });

  it("changes nothing in plain JSON", () => {
    const text = '{"a": [1, {"b": null}], "c": "d"}';
    assert.equal(stripJsonc(text), text);
  });
});
