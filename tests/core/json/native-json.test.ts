// The strict parser's native fast path (src/core/json/native-json.ts) must give
// exactly what the character-level parser gives: the same value, member order
// and -0 included, or the same error. These tests check that it declines
// every text it cannot prove clean, that it does take ordinary text, and,
// over random texts, that the two paths never disagree.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import fc from "fast-check";
import "../../helpers/fc-seed.js";
import { isContractpinError } from "../../../src/core/errors.js";
import type { JsonValue } from "../../../src/core/json/json-value.js";
import { digestTools } from "../../../src/core/contract/digest.js";
import { renderLock } from "../../../src/core/lock/lock.js";
import { parseNative } from "../../../src/core/json/native-json.js";
import { toolsFromDump } from "../../../src/core/contract/tools-list.js";
import { MAX_DEPTH, parseJson } from "../../../src/core/json/strict-json.js";
import { throwsCode } from "../../helpers/assert-code.js";

describe("parseNative declines", () => {
  const cases: [string, string][] = [
    ["a duplicate name", '{"a":1,"a":2}'],
    ["names equal after unescaping", '{"a":1,"\\u0061":2}'],
    ["a duplicate __proto__", '{"__proto__":1,"__proto__":2}'],
    ["a duplicate after whitespace before the colon", '{"a" :1,"a"\n:2}'],
    // A string holding `\":` makes the quick count one too high, and the
    // duplicate makes the members one too few: only the exact count sees it.
    ["a duplicate beside a string holding an escaped quote and colon", '{"a":"\\":","a":1}'],
    ["a duplicate beside a string starting with a colon", '{"x":":y","b":1,"b":2}'],
    ["a duplicate deep inside an array", '[[{"k":{"a":1,"b":2,"a":3}}]]'],
    ["a lone surrogate escape in a value", '["\\ud800"]'],
    ["a lone surrogate escape in a name", '{"\\udc00":1}'],
    ["a lone surrogate escape at the top", '"\\ud800"'],
    ["a reversed pair", '{"a":"\\ude00\\ud83d"}'],
    ["a number that overflows", '{"a":[1,1e400]}'],
    ["a number that overflows at the top", "-1e309"],
    ["invalid text", "[1,]"],
    ["trailing content", "{} {}"],
  ];
  for (const [what, text] of cases) {
    it(what, () => {
      assert.equal(parseNative(text, MAX_DEPTH), undefined);
    });
  }

  it("nesting deeper than the limit", () => {
    assert.equal(parseNative("[[[1]]]", 2), undefined);
    assert.equal(parseNative('{"a":{"b":{}}}', 2), undefined);
    assert.deepEqual(parseNative("[[1]]", 2), [[1]]);
    assert.deepEqual(parseNative('{"a":{"b":1}}', 2), { a: { b: 1 } });
  });
});

describe("parseNative takes", () => {
  it("a tools/list dump, a lock, and the vectors file", () => {
    const dump = readFileSync(
      new URL("../../../examples/server-memory.tools.json", import.meta.url),
      "utf8",
    );
    const tools = toolsFromDump(JSON.parse(dump) as JsonValue);
    const lock = renderLock({
      generated_at: "2026-11-30T00:00:00Z",
      servers: { memory: { transport: "file", path: "dump.json", ...digestTools(tools) } },
    });
    // Python's json.dumps: escaped non-ASCII, surrogate pairs included.
    const vectors = readFileSync(new URL("../../vectors.json", import.meta.url), "utf8");
    assert.ok(/\\ud83d/i.test(vectors));
    assert.deepEqual(parseNative(vectors, MAX_DEPTH), parseJson(vectors, { characterLevel: true }));
    assert.deepEqual(parseNative(lock, MAX_DEPTH), parseJson(lock, { characterLevel: true }));
    assert.deepEqual(parseNative(dump, MAX_DEPTH), parseJson(dump, { characterLevel: true }));
  });

  it("strings whose text looks like a member name, when nothing is duplicated", () => {
    const text = '{"a":"\\":","b":":x","c" : "d\\"  :"}';
    assert.deepEqual(parseNative(text, MAX_DEPTH), { a: '":', b: ":x", c: 'd"  :' });
  });

  it("valid surrogate pairs, escaped, and a leading byte order mark", () => {
    assert.deepEqual(parseNative('\ufeff{"\\ud83d\\ude00":"\\uD83D\\uDE00"}', MAX_DEPTH), {
      "😀": "😀",
    });
  });

  it("__proto__ as an own member, and -0", () => {
    const v = parseNative('{"__proto__":{"x":1},"n":-0}', MAX_DEPTH) as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(v), Object.prototype);
    assert.deepEqual(Object.keys(v), ["__proto__", "n"]);
    assert.ok(Object.is(v["n"], -0));
  });

  it("null at the top level (undefined means declined, never a JSON value)", () => {
    assert.equal(parseNative("null", MAX_DEPTH), null);
  });
});

// Random texts, written with random whitespace, escapes and duplicate names.
type Node =
  | { kind: "scalar"; text: string }
  | { kind: "string"; value: string }
  | { kind: "array"; items: Node[] }
  | { kind: "object"; members: [string, Node][] };

const NUMBER_TEXTS = [
  "0",
  "-0",
  "1",
  "-12.5e3",
  "1E2",
  "1e400",
  "-1e309",
  "1e-400",
  "9007199254740993",
  "0.1",
  "123456789012345678901234567890",
  "1.7976931348623157e308",
];
const KEYS = ["a", "b", "__proto__", "constructor", "toString", "1", "10", "2", "", "é", "😀"];
const STRINGS = [
  "",
  "x",
  '"',
  ":",
  '":',
  "\\",
  "\u2028",
  "\u0000",
  "😀",
  "\ud800",
  "\udc00",
  "a/b",
];

const { node } = fc.letrec<{ node: Node }>((tie) => ({
  node: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.oneof(
      fc
        .constantFrom(...NUMBER_TEXTS, "true", "false", "null")
        .map((text): Node => ({ kind: "scalar", text })),
      fc
        .double({ noNaN: true, noDefaultInfinity: true })
        .map((x): Node => ({ kind: "scalar", text: String(x) })),
      fc
        .oneof(fc.constantFrom(...STRINGS), fc.string({ unit: "binary", maxLength: 8 }))
        .map((value): Node => ({ kind: "string", value })),
    ),
    fc.array(tie("node"), { maxLength: 4 }).map((items): Node => ({ kind: "array", items })),
    fc
      .array(fc.tuple(fc.constantFrom(...KEYS, ...STRINGS), tie("node")), { maxLength: 4 })
      .map((members): Node => ({ kind: "object", members })),
  ),
}));

/** Writes `node` as JSON text, choosing whitespace and escapes from `choices`. */
function write(n: Node, choices: () => number): string {
  const ws = () => ["", "", "", " ", "\n  ", "\t", "\r\n"][choices() % 7]!;
  switch (n.kind) {
    case "scalar":
      return n.text;
    case "string":
      return quote(n.value, choices);
    case "array":
      return `[${ws()}${n.items.map((item) => write(item, choices) + ws()).join("," + ws())}]`;
    case "object":
      return `{${ws()}${n.members
        .map(([k, v]) => `${quote(k, choices)}${ws()}:${ws()}${write(v, choices)}${ws()}`)
        .join("," + ws())}}`;
  }
}

/** A string literal: plain, or with some code units written as \u escapes or `\/`. */
function quote(s: string, choices: () => number): string {
  let out = '"';
  for (const unit of s.split("")) {
    const c = unit.charCodeAt(0);
    const mode = choices() % 4;
    if (mode === 0 || c < 0x20 || unit === '"' || unit === "\\" || (c >= 0xd800 && c < 0xe000)) {
      const hex = c.toString(16).padStart(4, "0");
      out += `\\u${mode === 1 ? hex.toUpperCase() : hex}`;
    } else if (unit === "/" && mode === 2) {
      out += "\\/";
    } else {
      out += unit;
    }
  }
  return out + '"';
}

type Outcome = { value: JsonValue; order: string } | { code: string; message: string };

function outcome(parse: () => JsonValue): Outcome {
  try {
    const value = parse();
    return { value, order: JSON.stringify(value) ?? "" };
  } catch (err) {
    assert.ok(isContractpinError(err), String(err));
    return { code: err.code, message: err.message };
  }
}

it("the native path and the character-level parser agree on random texts", () => {
  let taken = 0;
  let declined = 0;
  fc.assert(
    fc.property(node, fc.array(fc.nat(), { minLength: 1 }), (n, seq) => {
      let i = 0;
      const choices = () => seq[i++ % seq.length]!;
      const text = (choices() % 2 ? " " : "") + write(n, choices) + (choices() % 2 ? "\n" : "");
      if (parseNative(text, MAX_DEPTH) === undefined) declined++;
      else taken++;
      const fast = outcome(() => parseJson(text));
      const slow = outcome(() => parseJson(text, { characterLevel: true }));
      assert.deepStrictEqual(fast, slow, text);
      // From UTF-8 bytes too, the way files and servers are read.
      if (text.isWellFormed()) {
        const bytes = new TextEncoder().encode(text);
        assert.deepStrictEqual(
          outcome(() => parseJson(bytes)),
          slow,
          text,
        );
      }
    }),
    { numRuns: 3000 },
  );
  // Both paths were exercised, so agreement means something.
  assert.ok(taken > 600 && declined > 300, `taken ${taken}, declined ${declined}`);
});

describe("a duplicate with whitespace before one colon only (found in an audit)", () => {
  // The quick count sees `"a" :` and `"a":` alike only if it allows whitespace
  // before the colon, and the exact count only if it skips that whitespace; a
  // string holding `\":` makes the quick count too high, so that the exact one
  // must decide. Random texts found a bug here only after hundreds of cases.
  const cases: [string, string][] = [
    ["a space before the first colon", '{"a" :1,"a":2}'],
    ["a space before the second colon", '{"a":1,"a" :2}'],
    ["a tab before one colon", '{"a"\t:1,"a":2}'],
    ["a newline before one colon", '{"a":1,"a"\n:2}'],
    ["a carriage return and spaces before one colon", '{"a"\r\n  :1,"a":2}'],
    ["nested in an object", '{"o":{"k" :1,"k":2}}'],
    ["in an array", '[1,{"k":1,"k"  :2}]'],
    ["deep in arrays", '[[[{"x":0,"k":1,"k"\t:2}]]]'],
    ["beside a string holding an escaped quote and colon", '{"s":"\\":","a" :1,"a":2}'],
    ["the other way round, beside such a string", '{"a":1,"s":"\\":","a"\n:2}'],
    ["beside a string starting with a colon", '{"s":":x","a":1,"a" :2}'],
  ];
  for (const [what, text] of cases) {
    it(`${what}: declined by the native path, JSON_DUPLICATE_KEY from parseJson`, () => {
      assert.equal(parseNative(text, MAX_DEPTH), undefined, text);
      throwsCode(() => parseJson(text), "JSON_DUPLICATE_KEY");
      throwsCode(() => parseJson(new TextEncoder().encode(text)), "JSON_DUPLICATE_KEY");
    });
  }

  it("the same texts without the duplicate are taken, with the character-level parser's value", () => {
    for (const text of ['{"a" :1,"b":2}', '{"a":1,"b"\t:2}', '{"s":"\\":","a" :1,"b":2}']) {
      assert.deepEqual(parseNative(text, MAX_DEPTH), parseJson(text, { characterLevel: true }));
    }
  });
});

describe("counting names in long strings (found in review)", () => {
  // A string of millions of escapes once overflowed a regex's backtracking
  // stack in the exact count, and the RangeError escaped parseJson.
  const escapes = "\\n".repeat(3_400_000);

  it("a valid text whose quick count is off by one is still parsed", () => {
    const text = `{"a":":","b":"${escapes}"}`;
    const value = parseJson(text) as Record<string, string>;
    assert.equal(value["a"], ":");
    assert.equal(value["b"]!.length, 3_400_000);
    assert.notEqual(parseNative(text, MAX_DEPTH), undefined);
  });

  it("a duplicate beside such a string is JSON_DUPLICATE_KEY on both paths", () => {
    const text = `{"a":"x","a":"${escapes}"}`;
    assert.equal(parseNative(text, MAX_DEPTH), undefined);
    throwsCode(() => parseJson(text), "JSON_DUPLICATE_KEY");
  });

  it("names ending in escaped backslashes and quotes are counted exactly", () => {
    const text = '{"\\\\":1,"\\"":2,"\\\\\\"":3,"x":"\\\\\\":"}';
    assert.deepEqual(parseNative(text, MAX_DEPTH), { "\\": 1, '"': 2, '\\"': 3, x: '\\":' });
    assert.equal(parseNative('{"\\\\":1,"\\\\":2,"x":":"}', MAX_DEPTH), undefined);
  });
});

describe("a polluted Object.prototype", () => {
  it("makes the native path decline; duplicates are still found", () => {
    // for...in would count the inherited property as a member of every
    // object, which could hide a duplicate from the count.
    Object.defineProperty(Object.prototype, "polluted", {
      value: 1,
      enumerable: true,
      configurable: true,
      writable: true,
    });
    try {
      assert.equal(parseNative('{"a":1,"a":2}', MAX_DEPTH), undefined);
      throwsCode(() => parseJson('{"a":1,"a":2}'), "JSON_DUPLICATE_KEY");
      assert.deepEqual(Object.keys(parseJson('{"a":1}') as object), ["a"]);
    } finally {
      delete (Object.prototype as Record<string, unknown>)["polluted"];
    }
  });
});
