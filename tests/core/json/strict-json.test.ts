import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MAX_DEPTH, parseJson } from "../../../src/core/json/strict-json.js";
import { throwsCode } from "../../helpers/assert-code.js";

const bytes = (s: string) => new TextEncoder().encode(s);

describe("parseJson accepts", () => {
  it("every JSON type, from bytes and from a string", () => {
    const text = '{"a":[1,-2.5e3,true,false,null,"x"],"b":{}}';
    const expected = { a: [1, -2500, true, false, null, "x"], b: {} };
    assert.deepEqual(parseJson(bytes(text)), expected);
    assert.deepEqual(parseJson(text), expected);
  });

  it("__proto__, constructor and toString as ordinary own members", () => {
    const v = parseJson('{"__proto__":{"polluted":true},"constructor":1,"toString":"s"}') as Record<
      string,
      unknown
    >;
    assert.deepEqual(Object.keys(v), ["__proto__", "constructor", "toString"]);
    assert.equal(Object.getPrototypeOf(v), Object.prototype);
    assert.deepEqual(Object.getOwnPropertyDescriptor(v, "__proto__")?.value, { polluted: true });
    assert.equal(({} as Record<string, unknown>)["polluted"], undefined);
  });

  it("escapes, including a surrogate pair written as two escapes", () => {
    assert.equal(
      parseJson('"\\"\\\\\\/\\b\\f\\n\\r\\t\\u0041\\u00e9\\ud83d\\ude00"'),
      '"\\/\b\f\n\r\tAé😀',
    );
  });

  it("raw astral and non-ASCII characters", () => {
    assert.equal(parseJson(bytes('"€😀\u2028"')), "€😀\u2028");
  });

  it("numbers by IEEE rounding, underflow to zero, and -0", () => {
    assert.equal(parseJson("9007199254740993"), 9007199254740992);
    assert.equal(parseJson("1e-400"), 0);
    assert.ok(Object.is(parseJson("-0"), -0));
    assert.equal(parseJson("1.7976931348623157e308"), Number.MAX_VALUE);
    assert.equal(parseJson("123456789012345"), 123456789012345);
    assert.equal(parseJson("-999999999999999"), -999999999999999);
    assert.equal(parseJson("1E2"), 100);
  });

  it("one leading byte order mark, and whitespace around the value", () => {
    assert.deepEqual(parseJson(bytes('\ufeff {"a":1}\n')), { a: 1 });
  });

  it(`${MAX_DEPTH} levels of nesting`, () => {
    let v = parseJson("[".repeat(MAX_DEPTH) + "]".repeat(MAX_DEPTH));
    let depth = 0;
    while (Array.isArray(v)) {
      depth++;
      v = v[0] ?? null;
    }
    assert.equal(depth, MAX_DEPTH);
    const objects = '{"a":'.repeat(MAX_DEPTH - 1) + "{}" + "}".repeat(MAX_DEPTH - 1);
    assert.equal(typeof parseJson(objects), "object");
  });
});

describe("parseJson rejects", () => {
  const cases: [string, string | Uint8Array, string][] = [
    ["a duplicate name", '{"a":1,"a":2}', "JSON_DUPLICATE_KEY"],
    ["names equal after unescaping", '{"a":1,"\\u0061":2}', "JSON_DUPLICATE_KEY"],
    ["a duplicate __proto__", '{"__proto__":1,"__proto__":2}', "JSON_DUPLICATE_KEY"],
    ["a duplicate toString", '{"toString":1,"toString":2}', "JSON_DUPLICATE_KEY"],
    [
      "a duplicate whose first value is null",
      '{"description":null,"description":"evil"}',
      "JSON_DUPLICATE_KEY",
    ],
    [
      "a nested duplicate whose first value is null",
      '{"tools":[{"name":"a","description":null,"description":"evil"}]}',
      "JSON_DUPLICATE_KEY",
    ],
    ["a lone high surrogate", '"\\ud800"', "JSON_LONE_SURROGATE"],
    ["a lone low surrogate", '"a\\udc00b"', "JSON_LONE_SURROGATE"],
    ["a reversed pair", '"\\ude00\\ud83d"', "JSON_LONE_SURROGATE"],
    ["a lone surrogate in a name", '{"\\ud800":1}', "JSON_LONE_SURROGATE"],
    ["a high surrogate before a non-surrogate escape", '"\\ud800\\u0041"', "JSON_LONE_SURROGATE"],
    ["1e400", "1e400", "JSON_NUMBER_OVERFLOW"],
    ["-1e309", "[-1e309]", "JSON_NUMBER_OVERFLOW"],
    ["a long integer that overflows", "1" + "0".repeat(309), "JSON_NUMBER_OVERFLOW"],
    ["invalid UTF-8", new Uint8Array([0x22, 0xff, 0x22]), "JSON_INVALID_UTF8"],
    ["an overlong encoding", new Uint8Array([0x22, 0xc0, 0xaf, 0x22]), "JSON_INVALID_UTF8"],
    ["an encoded surrogate", new Uint8Array([0x22, 0xed, 0xa0, 0x80, 0x22]), "JSON_INVALID_UTF8"],
    ["a truncated sequence", new Uint8Array([0x22, 0xe2, 0x82]), "JSON_INVALID_UTF8"],
    ["trailing content", "{} x", "JSON_TRAILING_CONTENT"],
    ["two values", "1 2", "JSON_TRAILING_CONTENT"],
    ["empty input", "", "JSON_SYNTAX"],
    ["only whitespace", "  \n", "JSON_SYNTAX"],
    ["NaN", "NaN", "JSON_SYNTAX"],
    ["Infinity", "[Infinity]", "JSON_SYNTAX"],
    ["a leading zero", "01", "JSON_SYNTAX"],
    ["a bare decimal point", "1.", "JSON_SYNTAX"],
    ["a plus sign", "+1", "JSON_SYNTAX"],
    ["an empty exponent", "1e", "JSON_SYNTAX"],
    ["a raw control character", '"a\tb"', "JSON_SYNTAX"],
    ["an unterminated string", '"abc', "JSON_SYNTAX"],
    ["an invalid escape", '"\\x41"', "JSON_SYNTAX"],
    ["a short \\u escape", '"\\u12"', "JSON_SYNTAX"],
    ["a trailing comma in an array", "[1,]", "JSON_SYNTAX"],
    ["a trailing comma in an object", '{"a":1,}', "JSON_SYNTAX"],
    ["a single-quoted string", "'a'", "JSON_SYNTAX"],
    ["an unquoted name", "{a:1}", "JSON_SYNTAX"],
    ["a missing colon", '{"a" 1}', "JSON_SYNTAX"],
    ["a comment", "[1 /* x */]", "JSON_SYNTAX"],
    ["a misspelt literal", "tru", "JSON_SYNTAX"],
    ["an unclosed array", "[1,2", "JSON_SYNTAX"],
    ["a non-JSON whitespace character", "\u00a01", "JSON_SYNTAX"],
    ["a second byte order mark", "\ufeff\ufeff1", "JSON_SYNTAX"],
    ["a string with a raw lone surrogate", '"\ud800"', "JSON_LONE_SURROGATE"],
  ];
  for (const [what, input, code] of cases) {
    it(`${what} (${code}), on every parse path`, () => {
      throwsCode(() => parseJson(input), code);
      throwsCode(() => parseJson(input, { characterLevel: true }), code);
      // As bytes too, when the text has a UTF-8 form (a raw lone surrogate has none).
      const bytes = typeof input === "string" ? new TextEncoder().encode(input) : undefined;
      if (bytes !== undefined && new TextDecoder().decode(bytes) === input) {
        throwsCode(() => parseJson(new TextEncoder().encode(input)), code);
        throwsCode(
          () => parseJson(new TextEncoder().encode(input), { characterLevel: true }),
          code,
        );
      }
    });
  }

  it(`nesting deeper than ${MAX_DEPTH} levels, without a stack overflow`, () => {
    throwsCode(
      () => parseJson("[".repeat(MAX_DEPTH + 1) + "]".repeat(MAX_DEPTH + 1)),
      "JSON_TOO_DEEP",
    );
    throwsCode(() => parseJson("[".repeat(1_000_000)), "JSON_TOO_DEEP");
  });
});

describe("parse errors say where", () => {
  it("with the byte offset and the JSON path", () => {
    const message = throwsCode(
      () => parseJson('{"tools":[{"name":"a"},{"name":"b","x":1,"x":2}]}'),
      "JSON_DUPLICATE_KEY",
    );
    assert.match(message, /duplicate member name "x"/);
    assert.match(message, /\$\.tools\[1\]\.x/);
    assert.match(message, /at byte 41 /);
  });

  it("counting bytes, not characters, after non-ASCII text", () => {
    const message = throwsCode(() => parseJson(bytes('["é", 1e999]')), "JSON_NUMBER_OVERFLOW");
    assert.match(message, /at byte 7 \(\$\[1\]\)/);
  });

  it("and give the offset of invalid UTF-8", () => {
    const message = throwsCode(
      () => parseJson(new Uint8Array([0x5b, 0x22, 0x61, 0xff, 0x22, 0x5d])),
      "JSON_INVALID_UTF8",
    );
    assert.match(message, /at byte 3/);
  });
});
