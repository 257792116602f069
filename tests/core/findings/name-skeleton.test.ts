// Names of one server compared by their UTS #39 skeleton, across kinds (issue 38).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { lookAlikes, nameSkeleton } from "../../../src/core/findings/name-skeleton.js";

describe("nameSkeleton", () => {
  it("reads look-alike letters, case, width, marks and invisible characters alike", () => {
    const plain = nameSkeleton("read_file");
    for (const name of [
      "re\u0430d_file", // Cyrillic а
      "READ_FILE",
      "\uff32\uff25\uff21\uff24_File\u200d", // full-width, zero-width joiner
      "rea\u0301d_fi\u0307le", // combining marks
      "read_fi1e", // digit one for l
    ])
      assert.equal(nameSkeleton(name), plain, name);
  });
  it("keeps names that read differently apart", () => {
    assert.notEqual(nameSkeleton("read_file"), nameSkeleton("read_files"));
    assert.notEqual(nameSkeleton("write_file"), nameSkeleton("read_file"));
  });
});

describe("lookAlikes across a server's kinds", () => {
  const alike = lookAlikes([
    { kind: "tools", name: "read_file" },
    { kind: "prompts", name: "re\u0430d_file" },
    { kind: "resource_templates", name: "summarize" },
    { kind: "prompts", name: "summarize" },
  ]);
  it("finds a prompt whose name looks like a tool's, and the tool from the prompt", () => {
    assert.deepEqual(alike("read_file"), [{ kind: "prompts", name: "re\u0430d_file" }]);
    assert.deepEqual(alike("re\u0430d_file"), [{ kind: "tools", name: "read_file" }]);
  });
  it("the same name under two kinds is not a look-alike", () => {
    assert.deepEqual(alike("summarize"), []);
  });
});
