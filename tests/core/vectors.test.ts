// Walks every vector of tests/vectors.json, whose expected values come from the
// independent Python implementation (tests/make_vectors.py), never from this code.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { textPath } from "../../src/core/canonical-bytes.js";
import { canonicalize } from "../../src/core/canonical-json.js";
import { contractOf } from "../../src/core/contract.js";
import { digestTools, digestValue, fieldDigests, toolDigest } from "../../src/core/digest.js";
import type { JsonValue } from "../../src/core/json-value.js";
import { parseJson } from "../../src/core/strict-json.js";
import { throwsCode } from "../helpers/assert-code.js";

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
interface Rejection {
  name: string;
  stage: "json" | "contract" | "tools";
  input_text?: string;
  input_hex?: string;
  error: string;
}

const file = parseJson(readFileSync(new URL("../vectors.json", import.meta.url))) as unknown as {
  canonicalization: string;
  vectors: Vector[];
  servers: ServerVector[];
  rejections: Rejection[];
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
  }
}

describe("rejection vectors", () => {
  for (const r of file.rejections) {
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
