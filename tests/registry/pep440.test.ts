import assert from "node:assert/strict";
import { test } from "node:test";
import {
  compareVersionText,
  isPep440Version,
  latestPep440,
  normalizePep440,
  normalizeProjectName,
} from "../../src/registry/pep440.js";

// Cases written by hand from PEP 440 (its own ordering example, its
// normalisation section) and PEP 503 (name normalisation): not from our output.

test("the ordering example of PEP 440's 'Summary of permitted suffixes and relative ordering'", () => {
  const ordered = [
    "1.dev0",
    "1.0.dev456",
    "1.0a1",
    "1.0a2.dev456",
    "1.0a12.dev456",
    "1.0a12",
    "1.0b1.dev456",
    "1.0b2",
    "1.0b2.post345.dev456",
    "1.0b2.post345",
    "1.0rc1.dev456",
    "1.0rc1",
    "1.0",
    "1.0+abc.5",
    "1.0+abc.7",
    "1.0+5",
    "1.0.post456.dev34",
    "1.0.post456",
    "1.0.15",
    "1.1.dev1",
  ];
  for (let i = 0; i < ordered.length; i++) {
    for (let j = 0; j < ordered.length; j++) {
      const want = Math.sign(i - j);
      assert.equal(
        Math.sign(compareVersionText(ordered[i]!, ordered[j]!)),
        want,
        `${ordered[i]} vs ${ordered[j]}`,
      );
    }
  }
  const shuffled = [...ordered].reverse();
  assert.deepEqual(shuffled.sort(compareVersionText), ordered);
});

test("release segments of any length, zeros padded; epochs rank first; numbers are not text", () => {
  assert.equal(compareVersionText("1.0", "1.0.0"), 0);
  assert.equal(compareVersionText("1", "1.0.0.0"), 0);
  assert.ok(compareVersionText("1.0.0.1", "1.0") > 0);
  assert.ok(compareVersionText("1.10", "1.9") > 0);
  assert.ok(compareVersionText("2.0", "1!1.0") < 0);
  assert.ok(compareVersionText("1!1.0", "0!9.9") > 0);
  assert.ok(compareVersionText("1.0.99999999999999999999", "1.0.99999999999999999998") > 0);
  assert.ok(compareVersionText("2025.12.1", "2025.9.30") > 0);
});

test("normalisation (PEP 440 'Normalization'): spellings of one version", () => {
  const cases: [string, string][] = [
    ["1.0-ALPHA.1", "1.0a1"],
    ["1.0alpha1", "1.0a1"],
    ["1.0-beta-2", "1.0b2"],
    ["1.0c1", "1.0rc1"],
    ["1.0pre1", "1.0rc1"],
    ["1.0preview", "1.0rc0"],
    ["1.0a", "1.0a0"],
    ["1.0-1", "1.0.post1"],
    ["1.0-r4", "1.0.post4"],
    ["1.0rev", "1.0.post0"],
    ["1.0_post_2", "1.0.post2"],
    ["1.0-dev", "1.0.dev0"],
    ["v1.0", "1.0"],
    [" 1.0 ", "1.0"],
    ["1.0+ubuntu-1", "1.0+ubuntu.1"],
    ["01.002", "1.2"],
    ["0!1.0", "1.0"],
  ];
  for (const [text, want] of cases) assert.equal(normalizePep440(text), want, text);
  for (const bad of ["", "1.0.", "a1", "1.0+", "1.0+a..b", "1..0", "1.0-", "latest", "1.*"]) {
    assert.equal(normalizePep440(bad), undefined, bad);
  }
  assert.equal(compareVersionText("1.0-ALPHA.1", "1.0a1"), 0);
});

test("isVersion: an exact public version safe in a command line", () => {
  for (const ok of ["1.0", "1.0.0", "2025.9.30", "1!2.0", "1.0rc1", "1.0.post1", "1.0.dev3"]) {
    assert.ok(isPep440Version(ok), ok);
  }
  for (const bad of ["1.0+local", "1.0 ", " 1.0", "v1.0", ">=1.0", "1.0;rm", "1.*", "", "1.0,<2"]) {
    assert.equal(isPep440Version(bad), false, bad);
  }
});

test("latest: the highest final release; a pre-release only when nothing else is offered", async () => {
  assert.equal(await latestPep440(["1.0", "2.0rc1", "1.1", "1.1.dev0", "junk"]), "1.1");
  assert.equal(await latestPep440(["1.0.post1", "1.0"]), "1.0.post1");
  // A development release is no final release, though it ranks above 1.0.
  assert.equal(await latestPep440(["1.0", "1.1.dev0"]), "1.0");
  assert.equal(await latestPep440(["1.0", "1.0.post1.dev2"]), "1.0");
  assert.equal(await latestPep440(["1.0", "1.1.dev0"], true), "1.1.dev0");
  assert.equal(await latestPep440(["2.0b1", "2.0a3"]), "2.0b1");
  assert.equal(await latestPep440([]), undefined);
  assert.equal(await latestPep440(["1.0", "2.0rc1", "1.1"], true), "2.0rc1");
});

test("PEP 503 names: lower case, runs of - _ . one dash", () => {
  assert.equal(normalizeProjectName("Friendly-Bard"), "friendly-bard");
  assert.equal(normalizeProjectName("FRIENDLY-BARD"), "friendly-bard");
  assert.equal(normalizeProjectName("friendly.bard"), "friendly-bard");
  assert.equal(normalizeProjectName("friendly_bard"), "friendly-bard");
  assert.equal(normalizeProjectName("friendly--bard"), "friendly-bard");
  assert.equal(normalizeProjectName("FrIeNdLy-._.-bArD"), "friendly-bard");
});
