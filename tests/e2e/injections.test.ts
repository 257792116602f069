// The disguised injections of issue 38 (tests/fixtures/injections/disguised.json)
// through the built CLI: a server whose tools carry them is pinned, and
// `audit` fails on every one at high or above; the same texts gained by a
// drift of a clean pin give the same findings in `verify --json`. A tool
// named with a Cyrillic `а` beside the real `read_file` is caught too. The same
// corpus in prompts, templates and instructions, pinned from surface dumps, below.
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

// The same corpus in every other part a model reads, pinned from surface dumps
// (SPEC.md 10.3): a prompt's and a resource template's description on one
// server, and the instructions of a server of their own each. A prompt and a
// template whose names read like the tool `read_file` (Cyrillic letters) are
// caught across kinds.
const LOOK_ALIKE_TEMPLATE = "re\u0430d_fil\u0435";
const promptName = (i: number) => `${names[i]}_prompt`;
const templateUri = (i: number) => `doc://${names[i]}/{id}`;

/** One server's surface dump: `read_file`, the corpus's prompts and templates (clean or poisoned). */
function surfaceDump(poison: boolean): unknown {
  const say = (i: number) => (poison ? INJECTIONS[i]!.text : CLEAN);
  const prompts: unknown[] = INJECTIONS.map((_, i) => ({
    name: promptName(i),
    description: say(i),
  }));
  const templates: unknown[] = INJECTIONS.map((_, i) => ({
    uriTemplate: templateUri(i),
    name: `${names[i]}_template`,
    description: say(i),
  }));
  // The look-alikes appear with the poison: on a drift they are added, as on a first pin.
  if (poison) {
    prompts.push({ name: LOOK_ALIKE, description: CLEAN });
    templates.push({
      uriTemplate: "doc://look/{id}",
      name: LOOK_ALIKE_TEMPLATE,
      description: CLEAN,
    });
  }
  return {
    "contractpin-dump": "2",
    initialize: { capabilities: { tools: {}, prompts: {}, resources: {} } },
    "tools/list": [{ tools: [tool("read_file", CLEAN)] }],
    "prompts/list": [{ prompts }],
    "resources/templates/list": [{ resourceTemplates: templates }],
  };
}

/** A server whose instructions are the corpus's text `i` (or clean ones). */
function instructionsDump(i: number, poison: boolean): unknown {
  return {
    "contractpin-dump": "2",
    initialize: {
      capabilities: { tools: {} },
      instructions: poison ? INJECTIONS[i]!.text : "Use these tools to read the project.",
    },
    "tools/list": [{ tools: [tool("read_file", CLEAN)] }],
  };
}

/** Each server's findings about its surface, by pointer, as sorted keys, without the additions themselves. */
function bySurfacePointer(servers: { name: string; findings?: JsonFinding[] }[]) {
  const map = new Map<string, string[]>();
  for (const server of servers)
    for (const f of server.findings ?? []) {
      if (f.tool !== undefined || f.rule === "surface-added") continue;
      const at = `${server.name} ${f.pointer}`;
      map.set(at, [...(map.get(at) ?? []), key(f)].sort());
    }
  return map;
}

/** Writes every dump, poisoned or clean, and pins each (once, when `add`). */
function writeDumps(ws: Workspace, poison: boolean, add: boolean): void {
  ws.write("surface.json", JSON.stringify(surfaceDump(poison)));
  if (add) assert.equal(runCli(["add", "docs", "--file", "surface.json"], { cwd: ws.dir }).code, 0);
  INJECTIONS.forEach((_, i) => {
    ws.write(`instructions-${i}.json`, JSON.stringify(instructionsDump(i, poison)));
    if (add) {
      const r = runCli(["add", `instructions_${i}`, "--file", `instructions-${i}.json`], {
        cwd: ws.dir,
      });
      assert.equal(r.code, 0, r.stderr);
    }
  });
}

describe("disguised injections in prompts, templates and instructions", () => {
  it("audit of a server pinned from a surface dump fails on each at high or above; verify of the same drift gives the same findings", () => {
    const first = new Workspace();
    writeDumps(first, true, true);
    const audit = runCli(["audit", "--json"], { cwd: first.dir });
    assert.equal(audit.code, 1, audit.stderr);
    const audited = bySurfacePointer(JSON.parse(audit.stdout).servers);
    const highAt = (prefix: string) =>
      [...audited]
        .filter(([at]) => at === prefix || at.startsWith(`${prefix}/`))
        .flatMap(([, keys]) => keys)
        .filter((k) => /"(critical|high)"/.test(k));
    const escape = (s: string) => s.replaceAll("~", "~0").replaceAll("/", "~1");
    INJECTIONS.forEach(({ kind }, i) => {
      for (const at of [
        `docs /prompts/${escape(promptName(i))}`,
        `docs /resource_templates/${escape(templateUri(i))}`,
        `instructions_${i} /instructions`,
      ])
        assert.ok(highAt(at).length > 0, `${kind} ${i} at ${at}: ${JSON.stringify(highAt(at))}`);
    });
    // Look-alike names across kinds: a prompt and a template named like the tool read_file.
    assert.deepEqual(audited.get(`docs /prompts/${LOOK_ALIKE}/name`), [
      key({
        rule: "name-confusable",
        severity: "high",
        pointer: `/prompts/${LOOK_ALIKE}/name`,
        after: LOOK_ALIKE,
      }),
    ]);
    assert.deepEqual(audited.get("docs /resource_templates/doc:~1~1look~1{id}/name"), [
      key({
        rule: "name-confusable",
        severity: "high",
        pointer: "/resource_templates/doc:~1~1look~1{id}/name",
        after: LOOK_ALIKE_TEMPLATE,
      }),
    ]);

    const drift = new Workspace();
    writeDumps(drift, false, true);
    writeDumps(drift, true, false);
    const verify = runCli(["verify", "--json"], { cwd: drift.dir });
    assert.equal(verify.code, 1, verify.stderr);
    const verified = bySurfacePointer(JSON.parse(verify.stdout).servers);
    assert.deepEqual(verified, audited);
  });
});
