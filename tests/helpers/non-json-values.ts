// Values that are not JSON, each with the error canonicalization must give
// it (spec 3.8): shared by the tests of canonicalize and of CanonicalWriter.
const sparse: unknown[] = [1];
sparse[2] = 3;
export const NON_JSON_VALUES: [what: string, value: unknown, code: string][] = [
  ["NaN", NaN, "CANON_NON_FINITE_NUMBER"],
  ["Infinity", [Infinity], "CANON_NON_FINITE_NUMBER"],
  ["-Infinity", { a: -Infinity }, "CANON_NON_FINITE_NUMBER"],
  ["undefined", undefined, "CANON_UNSUPPORTED_TYPE"],
  ["an undefined member", { a: undefined }, "CANON_UNSUPPORTED_TYPE"],
  ["a function", { f: () => 1 }, "CANON_UNSUPPORTED_TYPE"],
  ["a toJSON method (never called)", { toJSON: () => 1 }, "CANON_UNSUPPORTED_TYPE"],
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
