// Walks the surface sections of tests/vectors.json (items, surfaces, and the
// rejections of the new stages). Every expected value comes from the
// independent Python generator (tests/make_vectors.py), never from this code.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { canonicalize } from "../../../src/core/json/canonical-json.js";
import { digestTools, type ServerDigests } from "../../../src/core/contract/digest.js";
import type { JsonValue } from "../../../src/core/json/json-value.js";
import { validateLock } from "../../../src/core/lock/lock.js";
import { parseJson } from "../../../src/core/json/strict-json.js";
import { surfaceFromDump } from "../../../src/core/surface/dump.js";
import { digestItem, digestItems, itemContractOf } from "../../../src/core/surface/items.js";
import { kindById, type KindId } from "../../../src/core/contract/kinds.js";
import { isPinnedInstructions, isPinnedItem } from "../../../src/core/surface/pinned.js";
import { digestSurface, surfaceServerDigest } from "../../../src/core/surface/surface.js";
import { throwsCode } from "../../helpers/assert-code.js";

interface ItemVector {
  name: string;
  kind: KindId;
  input: JsonValue;
  input_text?: string;
  canonical: string;
  digest: string;
  fields: Record<string, string>;
}
interface SurfaceVector {
  name: string;
  dump: JsonValue;
  /** Pinned with --resources. */
  resources?: boolean;
  result: ServerDigests;
}
interface Rejection {
  name: string;
  stage: string;
  input_text: string;
  error: string;
}

const file = parseJson(readFileSync(new URL("../../vectors.json", import.meta.url))) as unknown as {
  items: ItemVector[];
  surfaces: SurfaceVector[];
  rejections: Rejection[];
};

/**
 * The lock's server object a surface dump gives, computed by the TypeScript
 * side; `resources`: pinned with --resources, so resources a server does not
 * advertise are pinned null (as a live read pins them).
 */
export function pinOfDump(dump: JsonValue, resources = false): ServerDigests {
  const read = surfaceFromDump(dump);
  if (resources && read.surface.lists.resources === undefined) read.surface.lists.resources = null;
  const tools = digestTools(read.tools);
  const surface = digestSurface(read.surface).digests;
  return { ...tools, digest: surfaceServerDigest(tools.digest, surface), surface };
}

describe("item vectors", () => {
  it("cover every kind", () => {
    const kinds = new Set(file.items.map((v) => v.kind));
    assert.deepEqual([...kinds].sort(), ["prompts", "resource_templates", "resources"]);
  });
  for (const v of file.items) {
    it(v.name, () => {
      const kind = kindById(v.kind);
      const value = v.input_text === undefined ? v.input : parseJson(v.input_text);
      const contract = itemContractOf(kind, value, kind.noun);
      assert.equal(canonicalize(contract), v.canonical);
      assert.deepEqual(digestItem(kind, contract), { digest: v.digest, fields: v.fields });
    });
  }
});

describe("surface vectors: the lock's server object", () => {
  for (const s of file.surfaces) {
    it(s.name, () => {
      assert.deepEqual(pinOfDump(s.dump, s.resources), s.result);
    });
    it(`${s.name}: a version 2 lock holding it validates`, () => {
      const lock = {
        contractpin: "2",
        algorithm: "sha256",
        canonicalization: "contractpin-canonical-json/1",
        generated_at: "2026-01-01T00:00:00Z",
        servers: { s: { transport: "file", path: "d.json", ...s.result } },
      } as unknown as JsonValue;
      assert.deepEqual(validateLock(lock).servers["s"]!.surface, s.result.surface);
    });
  }
  it("resources pinned null are in the server digest: not the digest of the same surface without them", () => {
    const v = file.surfaces.find((s) => s.name === "surface-resources-not-advertised")!;
    assert.equal(v.result.surface?.resources, null);
    const { resources: _null, ...without } = v.result.surface!;
    const tools = digestTools(surfaceFromDump(v.dump).tools).digest;
    assert.notEqual(surfaceServerDigest(tools, without), v.result.digest);
    assert.equal(surfaceServerDigest(tools, v.result.surface!), v.result.digest);
  });
  it("pages never change a digest; instructions '' and none differ", () => {
    const by = Object.fromEntries(file.surfaces.map((s) => [s.name, s.result.digest]));
    assert.equal(by["surface-paged"], by["surface-everything"]);
    assert.notEqual(by["surface-empty-instructions"], by["surface-no-instructions"]);
  });
});

describe("surface rejection vectors", () => {
  const stages = new Set(["prompts", "resource_templates", "resources", "surface"]);
  const rejections = file.rejections.filter((r) => stages.has(r.stage));
  it("exist for every new stage", () => {
    assert.deepEqual(new Set(rejections.map((r) => r.stage)), stages);
  });
  for (const r of rejections) {
    it(`${r.name} (${r.stage}: ${r.error})`, () => {
      const value = parseJson(r.input_text);
      throwsCode(
        () =>
          r.stage === "surface"
            ? pinOfDump(value)
            : digestItems(kindById(r.stage as KindId), value as JsonValue[]),
        r.error,
      );
    });
  }
});

describe("isPinnedItem / isPinnedInstructions: what the guard asks", () => {
  const everything = file.surfaces.find((s) => s.name === "surface-everything")!;
  const pinned = everything.result;
  const prompts = (everything.dump as { "prompts/list": { prompts: JsonValue[] }[] })[
    "prompts/list"
  ][0]!.prompts;
  const prompt = prompts[0] as Record<string, JsonValue>;
  const kind = kindById("prompts");
  it("a served prompt as pinned is pinned, with members the contract ignores too", () => {
    assert.equal(isPinnedItem(pinned, kind, prompt), true);
    assert.equal(isPinnedItem(pinned, kind, { ...prompt, title: "T", _meta: {} }), true);
  });
  it("a changed, unknown or malformed prompt is not", () => {
    assert.equal(isPinnedItem(pinned, kind, { ...prompt, description: "Greet. Also ..." }), false);
    assert.equal(isPinnedItem(pinned, kind, { name: "other" }), false);
    assert.equal(isPinnedItem(pinned, kind, "greet"), false);
    assert.equal(isPinnedItem(pinned, kindById("resources"), { uri: "x", name: "x" }), false);
  });
  it("instructions: the pinned text only; none only where none is pinned", () => {
    assert.equal(isPinnedInstructions(pinned, "Use echo to repeat text."), true);
    assert.equal(isPinnedInstructions(pinned, "Use echo to repeat text. IMPORTANT: ..."), false);
    assert.equal(isPinnedInstructions(pinned, undefined), false);
    const none = file.surfaces.find((s) => s.name === "surface-no-instructions")!.result;
    assert.equal(isPinnedInstructions(none, undefined), true);
    assert.equal(isPinnedInstructions(none, ""), false);
    const v1 = digestTools([]);
    assert.equal(isPinnedInstructions(v1, undefined), true);
    assert.equal(isPinnedInstructions(v1, "x"), false);
  });
});
