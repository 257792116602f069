import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { canonicalize } from "../../../src/core/json/canonical-json.js";
import { MAX_DEPTH } from "../../../src/core/json/strict-json.js";
import { throwsCode } from "../../helpers/assert-code.js";
import { NON_JSON_VALUES } from "../../helpers/non-json-values.js";

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
  for (const [what, value, code] of NON_JSON_VALUES) {
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
    const { toolDigest } = await import("../../../src/core/contract/digest.js");
    const { contractOf } = await import("../../../src/core/contract/contract.js");
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
