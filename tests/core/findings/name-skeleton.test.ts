// Names of one server compared by their UTS #39 skeleton, across kinds (issue 38).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { firstSightFindings } from "../../../src/core/findings/first-sight.js";
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

describe("first sight compares the names of tools, prompts and templates", () => {
  const tool = (name: string) => ({ name, description: "Read.", inputSchema: { type: "object" } });
  const rules = (findings: { rule: string; pointer?: string; before?: unknown }[]) =>
    findings
      .filter((f) => f.rule.endsWith("name-confusable"))
      .map((f) => [f.rule, f.pointer, f.before]);

  it("a tool with a Cyrillic а beside a prompt named read_file: both named", () => {
    const found = firstSightFindings("s", {
      contracts: [tool("re\u0430d_file")],
      surfaceContracts: {
        prompts: [{ name: "read_file", description: "Read.", arguments: null }],
        resource_templates: [],
      },
    });
    assert.deepEqual(rules(found), [
      ["tool-name-confusable", "/name", "read_file"],
      ["name-confusable", "/prompts/read_file/name", "re\u0430d_file"],
    ]);
  });

  it("a template whose name looks like a tool's, and a prompt like a template's", () => {
    const found = firstSightFindings("s", {
      contracts: [tool("search")],
      surfaceContracts: {
        prompts: [{ name: "D\u043e\u0441s", description: null, arguments: null }],
        resource_templates: [
          { uriTemplate: "x://{id}", name: "SEARCH", description: null },
          { uriTemplate: "y://{id}", name: "docs", description: null },
        ],
      },
    });
    assert.deepEqual(rules(found), [
      ["tool-name-confusable", "/name", "SEARCH"],
      ["name-confusable", "/prompts/D\u043e\u0441s/name", "docs"],
      ["name-confusable", "/resource_templates/x:~1~1{id}/name", "search"],
      ["name-confusable", "/resource_templates/y:~1~1{id}/name", "D\u043e\u0441s"],
    ]);
  });

  it("resources name data: never compared; the same name under two kinds is no look-alike", () => {
    const found = firstSightFindings("s", {
      contracts: [tool("search")],
      surfaceContracts: {
        prompts: [{ name: "search", description: null, arguments: null }],
        resource_templates: [],
        resources: [{ uri: "file:///a", name: "SEARCH", description: null }],
      },
    });
    assert.deepEqual(rules(found), []);
  });
});
