// The disguised injections of issue 38 (tests/fixtures/injections/disguised.json)
// through the built CLI: a server whose tools carry them is pinned, and
// `audit` fails on every one at high or above; the same texts gained by a
// drift of a clean pin give the same findings in `verify --json`. A tool
// named with a Cyrillic `а` beside the real `read_file` is caught too.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { runCli } from "../helpers/cli.js";
import { Workspace, type Tool } from "../helpers/workspace.js";

interface Injection {
  kind: string;
  text: string;
}
const INJECTIONS: Injection[] = JSON.parse(
  readFileSync(new URL("../fixtures/injections/disguised.json", import.meta.url), "utf8"),
).injections;

const CLEAN = "Reads a file from the project directory.";
const LOOK_ALIKE = "re\u0430d_file";
const tool = (name: string, description: string): Tool => ({
  name,
  description,
  inputSchema: { type: "object", properties: { path: { type: "string" } } },
});
const names = INJECTIONS.map((inj, i) => `${inj.kind}_${i}`);
const clean = (): Tool[] => names.map((n) => tool(n, CLEAN));
const poisoned = (): Tool[] => [
  ...INJECTIONS.map((inj, i) => tool(names[i]!, inj.text)),
  tool("read_file", CLEAN),
  tool(LOOK_ALIKE, CLEAN),
];

interface JsonFinding {
  rule: string;
  severity: string;
  tool?: string;
  pointer?: string;
  after?: unknown;
}
const key = (f: JsonFinding) => JSON.stringify([f.rule, f.severity, f.pointer, f.after]);

/** Each tool's findings, as sorted keys, without tool-added (every tool of a first pin is new). */
function byTool(findings: JsonFinding[]): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const f of findings) {
    if (f.rule === "tool-added") continue;
    map.set(f.tool!, [...(map.get(f.tool!) ?? []), key(f)].sort());
  }
  return map;
}

describe("disguised injections through audit and verify", () => {
  it("audit fails on each at high or above; verify of the same drift gives the same findings", () => {
    const first = new Workspace();
    first.dump("docs.json", poisoned());
    assert.equal(runCli(["add", "docs", "--file", "docs.json"], { cwd: first.dir }).code, 0);
    const audit = runCli(["audit", "--json"], { cwd: first.dir });
    assert.equal(audit.code, 1, audit.stderr);
    const audited = byTool(JSON.parse(audit.stdout).servers[0].findings);
    for (const name of names) {
      const high = (audited.get(name) ?? []).filter((k) => /"(critical|high)"/.test(k));
      assert.ok(high.length > 0, `${name}: ${JSON.stringify(audited.get(name))}`);
    }
    const confusable = audited.get(LOOK_ALIKE) ?? [];
    assert.ok(
      confusable.includes(
        key({
          rule: "tool-name-confusable",
          severity: "high",
          pointer: "/name",
          after: LOOK_ALIKE,
        }),
      ),
      JSON.stringify(confusable),
    );

    const drift = new Workspace();
    drift.dump("docs.json", clean());
    assert.equal(runCli(["add", "docs", "--file", "docs.json"], { cwd: drift.dir }).code, 0);
    drift.dump("docs.json", poisoned());
    const verify = runCli(["verify", "--json"], { cwd: drift.dir });
    assert.equal(verify.code, 1, verify.stderr);
    const server = JSON.parse(verify.stdout).servers[0];
    const found: JsonFinding[] = server.tools.flatMap(
      (t: { name: string; findings?: JsonFinding[] }) =>
        (t.findings ?? []).map((f) => ({ ...f, tool: f.tool ?? t.name })),
    );
    const verified = byTool(found);
    for (const name of [...names, LOOK_ALIKE])
      assert.deepEqual(verified.get(name), audited.get(name), name);
  });
});
