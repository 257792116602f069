import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { canonicalize } from "../../src/core/canonical-json.js";
import { MAX_DEPTH } from "../../src/core/strict-json.js";
import { throwsCode } from "../helpers/assert-code.js";

describe("canonicalize writes", () => {
  it("sorted members, no whitespace, literal non-ASCII (hand-checked)", () => {
    assert.equal(
      canonicalize({ b: [1, "é", null], a: { d: true, c: false } }),
      '{"a":{"c":false,"d":true},"b":[1,"é",null]}',
    );
  });

  it("integer-like keys by code units, not numerically", () => {
    assert.equal(canonicalize({ 9: 0, 10: 1, a: 2 }), '{"10":1,"9":0,"a":2}');
  });

  it("null-prototype objects and an own __proto__ member", () => {
    const o = Object.create(null) as Record<string, unknown>;
    o["z"] = 1;
    Object.defineProperty(o, "__proto__", { value: 2, enumerable: true });
    assert.equal(canonicalize(o), '{"__proto__":2,"z":1}');
  });

  it("a member named toJSON as data, never calling it", () => {
    assert.equal(canonicalize({ toJSON: "x", a: 1 }), '{"a":1,"toJSON":"x"}');
  });

  it(`${MAX_DEPTH} levels of nesting without recursion`, () => {
    let v: unknown = 0;
    for (let i = 0; i < MAX_DEPTH; i++) v = i % 2 ? [v] : { k: v };
    let open = "";
    let close = "";
    for (let i = MAX_DEPTH - 1; i >= 0; i--) {
      open += i % 2 ? "[" : '{"k":';
      close = (i % 2 ? "]" : "}") + close;
    }
    assert.equal(canonicalize(v), open + "0" + close);
  });
});

describe("canonicalize rejects what is not JSON", () => {
  const sparse: unknown[] = [1];
  sparse[2] = 3;
  const cases: [string, unknown, string][] = [
    ["NaN", NaN, "CANON_NON_FINITE_NUMBER"],
    ["Infinity", [Infinity], "CANON_NON_FINITE_NUMBER"],
    ["-Infinity", { a: -Infinity }, "CANON_NON_FINITE_NUMBER"],
    ["undefined", undefined, "CANON_UNSUPPORTED_TYPE"],
    ["an undefined member", { a: undefined }, "CANON_UNSUPPORTED_TYPE"],
    ["a function", { f: () => 1 }, "CANON_UNSUPPORTED_TYPE"],
    ["a bigint", 1n, "CANON_UNSUPPORTED_TYPE"],
    ["a symbol", [Symbol("s")], "CANON_UNSUPPORTED_TYPE"],
    ["a symbol-keyed member", { [Symbol("s")]: 1 }, "CANON_UNSUPPORTED_TYPE"],
    ["a hole in an array", sparse, "CANON_ARRAY_HOLE"],
    // eslint-disable-next-line no-sparse-arrays -- the hole is the point
    ["a leading hole", [, 1], "CANON_ARRAY_HOLE"],
    ["a Date (toJSON is not called)", new Date(0), "CANON_NON_PLAIN_OBJECT"],
    ["a Map", new Map([["a", 1]]), "CANON_NON_PLAIN_OBJECT"],
    ["a Set", new Set([1]), "CANON_NON_PLAIN_OBJECT"],
    ["a RegExp", /x/, "CANON_NON_PLAIN_OBJECT"],
    [
      "a class instance",
      new (class Point {
        x = 1;
      })(),
      "CANON_NON_PLAIN_OBJECT",
    ],
    ["a boxed string", new String("s"), "CANON_NON_PLAIN_OBJECT"],
    ["a typed array", new Uint8Array(2), "CANON_NON_PLAIN_OBJECT"],
    ["an Array subclass", new (class Arr extends Array {})(), "CANON_NON_PLAIN_OBJECT"],
    ["a lone high surrogate", "\ud800", "CANON_LONE_SURROGATE"],
    ["a lone low surrogate in a key", { "a\udc00": 1 }, "CANON_LONE_SURROGATE"],
    ["a reversed pair", ["\ude00\ud83d"], "CANON_LONE_SURROGATE"],
  ];
  for (const [what, value, code] of cases) {
    it(`${what} (${code})`, () => {
      throwsCode(() => canonicalize(value), code);
    });
  }

  it("a cycle, as too deep rather than a hang", () => {
    const a: unknown[] = [];
    a.push(a);
    throwsCode(() => canonicalize(a), "CANON_TOO_DEEP");
  });

  it("naming the path of the bad value", () => {
    const message = throwsCode(
      () => canonicalize({ tools: [{ name: "x" }, { inputSchema: { n: NaN } }] }),
      "CANON_NON_FINITE_NUMBER",
    );
    assert.match(message, /\$\.tools\[1\]\.inputSchema\.n/);
  });
});

describe("the nesting limit counts from the document's root on every path", () => {
  it("a tool whose inputSchema nests past the limit is rejected by the digest as by canonicalize", async () => {
    const { toolDigest } = await import("../../src/core/digest.js");
    const { contractOf } = await import("../../src/core/contract.js");
    const nested = (levels: number) => {
      let schema: unknown = {};
      for (let i = 1; i < levels; i++) schema = { s: schema };
      return { name: "deep", inputSchema: schema } as never;
    };
    // The contract object is one level, its inputSchema the rest.
    const atLimit = nested(MAX_DEPTH - 1);
    assert.equal(typeof canonicalize(contractOf(atLimit)), "string");
    assert.match(toolDigest(atLimit), /^sha256:/);
    const past = nested(MAX_DEPTH);
    throwsCode(() => canonicalize(contractOf(past)), "CANON_TOO_DEEP");
    throwsCode(() => toolDigest(past), "CANON_TOO_DEEP");
  });
});
