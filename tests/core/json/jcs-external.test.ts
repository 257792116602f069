// The RFC 8785 reference implementation's own test data (a copy in
// tests/fixtures/jcs-testdata, see its ORIGIN.md): every input must canonicalize
// to its output, byte for byte.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, it } from "node:test";
import { canonicalize } from "../../../src/core/json/canonical-json.js";
import { parseJson } from "../../../src/core/json/strict-json.js";

// CONTRACTPIN_JCS_TESTDATA may point at another copy of the reference's testdata folder.
const root = process.env["CONTRACTPIN_JCS_TESTDATA"]
  ? pathToFileURL(process.env["CONTRACTPIN_JCS_TESTDATA"].replace(/\/?$/, "/"))
  : new URL("../../fixtures/jcs-testdata/", import.meta.url);
if (!existsSync(new URL("input/", root))) {
  throw new Error(
    `RFC 8785 test data not found at ${fileURLToPath(root)} (see tests/core/json/jcs-external.test.ts)`,
  );
}
const names = readdirSync(new URL("input/", root)).filter((n) => n.endsWith(".json"));

describe("RFC 8785 reference test data", () => {
  it("is present (six pairs)", () => {
    assert.ok(names.length >= 6, `found ${names.length} inputs`);
  });
  for (const name of names) {
    it(name, () => {
      const expected = readFileSync(new URL(`output/${name}`, root));
      const hex = readFileSync(new URL(`outhex/${name.replace(/\.json$/, ".txt")}`, root), "utf8");
      assert.equal(expected.toString("hex"), hex.replace(/\s+/g, "").toLowerCase());
      const actual = Buffer.from(
        canonicalize(parseJson(readFileSync(new URL(`input/${name}`, root)))),
        "utf8",
      );
      assert.equal(actual.toString("hex"), expected.toString("hex"));
    });
  }
});
