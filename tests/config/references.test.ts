import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { inputVariable, rewriteReferences } from "../../src/config/references.js";

const ctx = { projectDir: "/work/my-project", home: "/home/ada" };
const ok = (value: string, c: { projectDir: string; home?: string } = ctx) => {
  const r = rewriteReferences(value, c);
  assert.ok(r.ok, r.ok ? "" : r.reason);
  return r.value;
};
const reason = (value: string) => {
  const r = rewriteReferences(value, ctx);
  assert.ok(!r.ok, `expected ${value} to be refused`);
  return r.reason;
};

describe("rewriteReferences", () => {
  it("keeps ${VAR}, rewrites ${env:VAR}, leaves plain text alone", () => {
    assert.equal(ok("Bearer ${TOKEN}"), "Bearer ${TOKEN}");
    assert.equal(ok("${env:HOME}/x:${env:_P1}"), "${HOME}/x:${_P1}");
    assert.equal(ok("plain $HOME and {braces}"), "plain $HOME and {braces}");
  });

  it("refuses an unclosed ${, which would reach the server literally", () => {
    assert.match(reason("${TOKEN} and ${ open"), /not a reference contractpin can expand/);
    const r = rewriteReferences("${workspaceFolder}", { projectDir: "/odd/${dir" });
    assert.ok(!r.ok);
  });

  it("rewrites ${input:ID} and lists the ID", () => {
    const r = rewriteReferences("${input:api-key} ${input:db.pass}", ctx);
    assert.deepEqual(r, {
      ok: true,
      value: "${CONTRACTPIN_INPUT_API_KEY} ${CONTRACTPIN_INPUT_DB_PASS}",
      inputs: ["api-key", "db.pass"],
    });
    assert.equal(inputVariable("github-pat"), "CONTRACTPIN_INPUT_GITHUB_PAT");
  });

  it("expands the editors' own variables", () => {
    assert.equal(ok("${workspaceFolder}/a"), "/work/my-project/a");
    assert.equal(ok("${workspaceRoot}"), "/work/my-project");
    assert.equal(ok("${workspaceFolderBasename}"), "my-project");
    assert.equal(ok("${workspaceFolderBasename}", { projectDir: "C:\\src\\app\\" }), "app");
    assert.equal(ok("${userHome}/.db"), "/home/ada/.db");
  });

  it("refuses what contractpin cannot expand, naming the form but not its argument", () => {
    assert.match(reason("${API:-https://secret.example}"), /^\$\{API:-…\} \(a default value\)/);
    assert.ok(!reason("${API:-hunter2}").includes("hunter2"));
    assert.match(reason("${command:extension.pick}"), /^\$\{command…\} cannot be expanded/);
    assert.ok(!reason("${env:a-b}").includes("a-b"));
    assert.match(reason("${}"), /cannot be expanded/);
    const noHome = rewriteReferences("${userHome}", { projectDir: "/p" });
    assert.ok(!noHome.ok && /no home directory/.test(noHome.reason));
  });
});
