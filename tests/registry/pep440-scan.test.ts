import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import "../helpers/fc-seed.js";
import { scanPep440 } from "../../src/registry/pep440-scan.js";

// The permissive expression of PEP 440's appendix ("Parsing version strings
// with regular expressions"), as the PEP gives it (VERBOSE, IGNORECASE),
// written on one line: the reference the scanner must agree with.
const PEP_440 =
  /^\s*v?(?:(\d+)!)?(\d+(?:\.\d+)*)(?:[-_.]?(a|b|c|rc|alpha|beta|pre|preview)[-_.]?(\d+)?)?(?:-(\d+)|[-_.]?(post|rev|r)[-_.]?(\d+)?)?(?:[-_.]?(dev)[-_.]?(\d+)?)?(?:\+([a-z0-9]+(?:[-_.][a-z0-9]+)*))?\s*$/i;

const reference = (text: string) => {
  const m = PEP_440.exec(text);
  return m === null ? undefined : m.slice(1);
};

const agrees = (text: string) =>
  assert.deepEqual(scanPep440(text), reference(text), JSON.stringify(text));

test("the scanner gives the expression's groups: the spellings PEP 440 names, and near misses", () => {
  for (const text of [
    "1.0",
    " v1.0 ",
    "V1!2.3",
    "1!",
    "1.0.",
    "1..0",
    "01.002",
    "1.0alpha1",
    "1.0a",
    "1.0-ALPHA.1",
    "1.0preview",
    "1.0pre",
    "1.0rc1",
    "1.0c1",
    "1.0r",
    "1.0rev",
    "1.0re",
    "1.0-1",
    "1.0-r4",
    "1.0_post_2",
    "1.0a-1",
    "1.0a--1",
    "1.0a.-5",
    "1.0a-dev",
    "1.0a-",
    "1.0-",
    "1.0.post.dev",
    "1.0.dev-+abc",
    "1.0+ubuntu-1",
    "1.0+",
    "1.0+a..b",
    "1.0+a-",
    "1.0+\u212a",
    "1.0\u212a",
    "1.0\u0130",
    "1.0\u00a0",
    "\ufeff1.0",
    "v 1.0",
    "1.0 x",
    "",
  ])
    agrees(text);
});

test("the scanner gives the expression's groups on random text of version pieces", () => {
  const pieces = [
    ...["0", "1", "9", "00", "07", "!", ".", "-", "_", "+", " ", "\t", "\u00a0"],
    ...["v", "V", "a", "A", "alpha", "b", "beta", "c", "rc", "RC", "pre", "preview", "Pre"],
    ...["post", "rev", "r", "R", "dev", "DEV", "x", "e", "l", "\u212a", "\u0130"],
  ];
  fc.assert(
    fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 14 }), (parts) => {
      agrees(parts.join(""));
    }),
    { numRuns: 20_000 },
  );
});

test("a version of 16 MiB is one pass (the expression's backtracking stack overflows from 8 MiB)", () => {
  const long = `1${".1".repeat(8 * 1024 * 1024)}`;
  assert.equal(scanPep440(long)?.[1], long);
  assert.equal(scanPep440(`${long}x`), undefined);
});
