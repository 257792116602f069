// Walks every vector of tests/vectors.json, whose expected values come from the
// independent Python implementation (tests/make_vectors.py), never from this code.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { textPath } from "../../../src/core/json/canonical-bytes.js";
import { canonicalize } from "../../../src/core/json/canonical-json.js";
import { contractOf } from "../../../src/core/contract/contract.js";
import { VISIBILITY } from "../../../src/core/contract/kinds.js";
import { sidePinValue } from "../../../src/core/contract/side-pins.js";
import {
  digestEachTool,
  digestToolContracts,
  digestTools,
  digestValue,
  fieldDigests,
  toolDigest,
  type ServerDigests,
} from "../../../src/core/contract/digest.js";
import type { JsonValue } from "../../../src/core/json/json-value.js";
import { parseJson } from "../../../src/core/json/strict-json.js";
import { throwsCode } from "../../helpers/assert-code.js";

interface Vector {
  name: string;
  project: boolean;
  input: JsonValue;
  input_text?: string;
  canonical: string;
  digest: string;
  fields?: Record<string, string>;
}
interface ServerVector {
  name: string;
  tools: JsonValue[];
  result: JsonValue;
}
/** A side-pin vector (SPEC.md 13): a tool, its tool digest, its visibility digest (null: none). */
interface SidePinVector {
  name: string;
  tool: JsonValue;
  tool_digest: string;
  visibility_canonical: string | null;
  visibility: string | null;
}
interface Rejection {
  name: string;
  stage: "json" | "contract" | "tools";
  input_text?: string;
  input_hex?: string;
  error: string;
}

const file = parseJson(readFileSync(new URL("../../vectors.json", import.meta.url))) as unknown as {
  canonicalization: string;
  vectors: Vector[];
  servers: ServerVector[];
  rejections: Rejection[];
  side_pins: SidePinVector[];
};

it("the vectors are for contractpin-canonical-json/1 and cover every section", () => {
  assert.equal(file.canonicalization, "contractpin-canonical-json/1");
  assert.ok(file.vectors.length >= 60 && file.servers.length >= 4 && file.rejections.length >= 30);
  assert.ok(file.vectors.some((v) => v.name === "key-order-utf16"));
});

// CanonicalWriter writes a process's first values through canonicalize,
// then through its byte loop: every vector goes through each.
const paths: [string, number][] = [
  ["text path", Number.POSITIVE_INFINITY],
  ["byte loop", 0],
];
for (const [path, valuesLeft] of paths) {
  describe(`vectors, ${path}`, () => {
    before(() => {
      textPath.valuesLeft = valuesLeft;
    });
    after(() => {
      textPath.valuesLeft = 0;
    });
    vectorTests();
  });
}

function vectorTests(): void {
  for (const v of file.vectors) {
    it(v.name, () => {
      const value = v.input_text === undefined ? v.input : parseJson(v.input_text);
      if (v.input_text !== undefined) assert.deepEqual(value, v.input);
      if (v.project) {
        assert.equal(canonicalize(contractOf(value)), v.canonical);
        assert.equal(toolDigest(value), v.digest);
        assert.deepEqual(fieldDigests(value), v.fields);
      } else {
        assert.equal(canonicalize(value), v.canonical);
        assert.equal(digestValue(value), v.digest);
      }
    });
  }
  for (const s of file.servers) {
    it(`server: ${s.name}`, () => {
      assert.deepEqual(digestTools(s.tools), s.result);
    });
    // verify asks for field digests only where a tool's digest differs from
    // the pin: the others get none, and nothing else changes.
    it(`server: ${s.name}, field digests for the tools asked for only`, () => {
      const expected = s.result as unknown as ServerDigests;
      const names = Object.keys(expected.tools);
      const wanted = new Set(names.filter((_, i) => i % 2 === 0));
      const asked: [string, string][] = [];
      const { digests } = digestToolContracts(s.tools, (name, digest) => {
        asked.push([name, digest]);
        return wanted.has(name);
      });
      assert.deepEqual(asked.sort(), names.map((n) => [n, expected.tools[n]!.digest]).sort());
      assert.equal(digests.digest, expected.digest);
      for (const name of names) {
        assert.equal(digests.tools[name]!.digest, expected.tools[name]!.digest);
        assert.deepEqual(
          digests.tools[name]!.fields,
          wanted.has(name) ? expected.tools[name]!.fields : {},
        );
      }
    });
  }
}

// The stages of the surface (prompts, resource_templates, resources, surface)
// are walked by tests/core/surface/surface-vectors.test.ts.
const TOOL_STAGES = new Set(["json", "contract", "tools"]);

describe("rejection vectors", () => {
  for (const r of file.rejections.filter((r) => TOOL_STAGES.has(r.stage))) {
    it(`${r.name} (${r.stage}: ${r.error})`, () => {
      const input = r.input_hex === undefined ? r.input_text! : Buffer.from(r.input_hex, "hex");
      if (r.stage === "json") {
        throwsCode(() => parseJson(input), r.error);
        return;
      }
      const value = parseJson(input);
      if (r.stage === "contract") throwsCode(() => contractOf(value), r.error);
      else throwsCode(() => digestTools(value as JsonValue[]), r.error);
    });
  }
});

// SPEC.md 13: the visibility side pin, beside the tool digest and in none.
describe("side-pin vectors", () => {
  it("cover a pinned value, an absent one and the seed spec's tool digest", () => {
    const names = file.side_pins.map((v) => v.name);
    assert.ok(names.includes("visibility-app") && names.includes("visibility-meta-absent"));
    assert.ok(names.includes("visibility-tool-digest-unchanged"));
  });
  for (const v of file.side_pins) {
    it(v.name, () => {
      const { byName } = digestEachTool([v.tool]);
      const [digests] = [...byName.values()];
      assert.equal(digests!.digest, v.tool_digest);
      if (v.visibility === null) {
        assert.ok(!Object.hasOwn(digests!, "visibility"));
        assert.equal(sidePinValue(VISIBILITY, v.tool), undefined);
      } else {
        assert.equal(digests!.visibility, v.visibility);
        assert.equal(canonicalize(sidePinValue(VISIBILITY, v.tool)), v.visibility_canonical);
      }
    });
  }
});
