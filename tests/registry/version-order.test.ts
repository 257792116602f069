import assert from "node:assert/strict";
import { test } from "node:test";
import { compareNumerals } from "../../src/registry/numerals.js";
import { compareVersionText, latestPep440, normalizePep440 } from "../../src/registry/pep440.js";
import { compareTags, newestLike } from "../../src/registry/tag-order.js";
import { compareVersions, newestOf } from "../../src/registry/versions.js";

// 2^53 = 9007199254740992: Number(9007199254740993) is 9007199254740992, so every
// pair below compares equal (or the wrong way) through Number. Written by hand.
const TWO_53 = "9007199254740992";
const TWO_53_PLUS_1 = "9007199254740993";

test("numbers of any length compare by value: by length without leading zeros, then digit by digit", () => {
  assert.ok(compareNumerals(TWO_53_PLUS_1, TWO_53) > 0);
  assert.ok(compareNumerals(TWO_53, TWO_53_PLUS_1) < 0);
  assert.equal(compareNumerals("007", "7"), 0);
  assert.equal(compareNumerals("0", "000"), 0);
  assert.ok(compareNumerals("10", "9") > 0);
  assert.ok(compareNumerals(`1${"0".repeat(400)}`, "9".repeat(400)) > 0);
});

test("npm: versions past 2^53 are ordered exactly, in the core and in pre-release numbers", async () => {
  assert.ok(compareVersions(`${TWO_53}.0.1`, `${TWO_53_PLUS_1}.0.0`) < 0);
  assert.ok(compareVersions(`${TWO_53_PLUS_1}.0.0`, `${TWO_53}.0.1`) > 0);
  assert.ok(compareVersions(`1.${TWO_53_PLUS_1}.0`, `1.${TWO_53}.0`) > 0);
  assert.ok(compareVersions(`1.0.${TWO_53_PLUS_1}`, `1.0.${TWO_53}`) > 0);
  assert.ok(compareVersions(`1.0.0-rc.${TWO_53_PLUS_1}`, `1.0.0-rc.${TWO_53}`) > 0);
  assert.equal(compareVersions(`${TWO_53}.0.0+build.1`, `${TWO_53}.0.0+build.2`), 0);
  assert.equal(
    await newestOf([`${TWO_53_PLUS_1}.0.0`, `${TWO_53}.0.1`, "1.0.0"]),
    `${TWO_53_PLUS_1}.0.0`,
  );
  assert.equal(await newestOf([`${TWO_53}.0.1`, `${TWO_53_PLUS_1}.0.0`]), `${TWO_53_PLUS_1}.0.0`);
});

test("PEP 440: segments past 2^53 and of hundreds of digits, ordered and normalised exactly", async () => {
  assert.ok(compareVersionText(`${TWO_53_PLUS_1}.0`, `${TWO_53}.1`) > 0);
  assert.ok(compareVersionText(`1.0.post${TWO_53_PLUS_1}`, `1.0.post${TWO_53}`) > 0);
  assert.ok(compareVersionText(`1.0+${TWO_53_PLUS_1}`, `1.0+${TWO_53}`) > 0);
  assert.equal(
    await latestPep440([`${TWO_53}.1`, `${TWO_53_PLUS_1}.0`, "1.0"]),
    `${TWO_53_PLUS_1}.0`,
  );
  const long = "9".repeat(500);
  assert.equal(normalizePep440(`000${long}.01`), `${long}.1`);
  assert.ok(compareVersionText(`1${"0".repeat(500)}`, long) > 0);
});

test("image tags: numbers past 2^53 by value", async () => {
  assert.ok(compareTags(`${TWO_53_PLUS_1}.0`, `${TWO_53}.1`) > 0);
  assert.equal(
    await newestLike("1.0", [`${TWO_53}.1`, `${TWO_53_PLUS_1}.0`]),
    `${TWO_53_PLUS_1}.0`,
  );
});
