// The CI report formats (issue 12) at their edges, through the built CLI:
// 10,000 findings (annotation caps, a job summary appended under 1 MiB), a
// tool name made of the characters workflow commands escape, a lock whose
// entries were reordered by hand (fingerprints keep, lines follow), and
// `diff` writing the same formats as `verify`.
import assert from "node:assert/strict";
import { statSync } from "node:fs";
import { describe, it } from "node:test";
import { runCli } from "../helpers/cli.js";
import { sarifErrors, validateSarif } from "../helpers/sarif-schema.js";
import { baseTools, Workspace, type Tool } from "../helpers/workspace.js";

const NO_CI = {
  GITHUB_ACTIONS: undefined,
  GITHUB_STEP_SUMMARY: undefined,
  GITHUB_WORKSPACE: undefined,
};
const MIB = 1024 * 1024;

function cli(args: string[], ws: Workspace, env: Record<string, string | undefined> = {}) {
  return runCli(args, { cwd: ws.dir, env: { ...NO_CI, ...env } });
}

/** The workflow commands of a run's stdout: [command, properties, data] per line. */
function commands(text: string): [string, string, string][] {
  const out: [string, string, string][] = [];
  for (const line of text.split("\n")) {
    const m = /^::(\w+)(?: ([^:]*))?::(.*)$/.exec(line);
    if (m !== null) out.push([m[1]!, m[2] ?? "", m[3]!]);
  }
  return out;
}

/** The runner's unescaping of a command's data. */
function unescapeData(text: string): string {
  return text.replaceAll("%0D", "\r").replaceAll("%0A", "\n").replaceAll("%25", "%");
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a parsed SARIF log, read freely
type Sarif = any;

function fingerprints(log: Sarif): Map<string, [string, number]> {
  const out = new Map<string, [string, number]>();
  for (const r of log.runs[0].results) {
    const key = `${r.ruleId} ${r.properties.tool ?? ""}`;
    out.set(key, [
      r.partialFingerprints["contractpinFinding/v1"],
      r.locations[0].physicalLocation.region.startLine,
    ]);
  }
  return out;
}

describe("report formats at their edges", () => {
  it("10,000 findings: 10 errors, 10 warnings, one notice with the totals; the job summary appended, under 1 MiB", () => {
    const ws = new Workspace();
    const tools = (n: number, description: string): Tool[] =>
      Array.from({ length: n }, (_, i) => ({
        name: `tool${String(i).padStart(5, "0")}`,
        description: `${description} ${i}`,
        // Closed: a property added to it widens what the tool accepts (high).
        inputSchema: { type: "object", properties: {}, additionalProperties: false },
      }));
    ws.dump("big.json", tools(10_000, "Reads a page."));
    assert.equal(cli(["add", "big", "--file", "big.json"], ws).code, 0);
    // Every description changes (low: warnings, identical: one annotation);
    // every tool gains its own property (high: errors, each its own); 15 tools
    // are added (medium: errors, identical).
    const added = Array.from({ length: 15 }, (_, i) => ({ name: `new${i}`, description: "x" }));
    const changed = tools(10_000, "Reads a page, ```` then `mails` it").map((t, i) => ({
      ...t,
      inputSchema: {
        type: "object",
        properties: { [`p${i}`]: { type: "string" } },
        additionalProperties: false,
      },
    }));
    ws.dump("big.json", [...changed, ...added]);
    const summary = ws.write("summary.md", "## an earlier step\n");

    // --output: the text report of 10,000 drifted tools is more than a pipe's buffer here.
    const r = cli(["verify", "--format", "github", "--output", "gh.txt"], ws, {
      GITHUB_STEP_SUMMARY: summary,
    });
    assert.equal(r.code, 1, r.stderr);
    const all = commands(ws.read("gh.txt"));
    assert.equal(all.filter(([c]) => c === "error").length, 10);
    const warnings = all.filter(([c]) => c === "warning");
    assert.equal(warnings.length, 1);
    // The 10,000 identical description changes: one annotation, 50 names and a count.
    assert.match(
      unescapeData(warnings[0]![2]),
      /^server big, 10000 tools: tool00000, tool00001, .*, tool00049 and 9950 more \(the text report names each\): /,
    );
    const notices = all.filter(([c]) => c === "notice");
    assert.equal(notices.length, 1);
    assert.match(
      notices[0]![2],
      /^contractpin: 20015 findings \(10015 errors, 10000 warnings\); annotated: the first 10 of each/,
    );
    // The errors come first: most severe first.
    assert.deepEqual(
      all.slice(0, 11).map(([c]) => c),
      [...Array(10).fill("error"), "warning"],
    );

    const size = statSync(summary).size;
    assert.ok(size < MIB, `the job summary is ${size} bytes`);
    const md = ws.read("summary.md");
    assert.ok(md.startsWith("## an earlier step\n## contractpin: FAIL\n"), md.slice(0, 80));
    assert.match(md, /^\| ` big ` \| ❌ drift \| 10000 \| 10000 \| 15 \| 0 \|$/m);
    assert.match(md, /\n> \*\*Truncated:\*\* \d+ of \d+ parts of this report were left out/);
    assert.match(
      md,
      /^- \*\*high\*\* ` input-property-added ` \(lock line \d+\): ` server big, tool tool\d+: /m,
    );
  });

  it("a tool name with , : % CR and LF is one annotation, its data escaped as the runner unescapes it", () => {
    const ws = new Workspace();
    ws.dump("d.json", baseTools());
    // The lock's name is a property value (file=): , and : escaped there too.
    const lock = ["--lock", "l,o:c%k.lock"];
    assert.equal(cli(["add", "d,o:c%s", "--file", "d.json", ...lock], ws).code, 0);
    const name = "a,b:c%0A%d\r\n::error::x";
    ws.dump("d.json", [...baseTools(), { name, description: "50%\n::add-mask::y" }]);
    const r = cli(["verify", "--format", "github", ...lock], ws);
    assert.equal(r.code, 1, r.stderr);
    const all = commands(r.stdout);
    assert.deepEqual(
      all.map(([c]) => c),
      ["error", "notice"],
    );
    const [, props, data] = all[0]!;
    assert.match(
      props,
      /^file=l%2Co%3Ac%25k\.lock,line=\d+,title=contractpin medium%3A tool-added$/,
    );
    assert.ok(!data.includes("\r") && !/%(?!25|0A|0D)/.test(data), data);
    // The server's name and the tool's, as the text report shows them (escaped, quoted).
    assert.ok(
      unescapeData(data).startsWith(
        'server d,o:c%s, tool "a,b:c%0A%d\\r\\n::error::x": A tool was added.',
      ),
      unescapeData(data),
    );
  });

  it("a lock reordered by hand: each fingerprint keeps, each line follows its entry", () => {
    const ws = new Workspace();
    const tools = baseTools();
    ws.dump("d.json", tools);
    assert.equal(cli(["add", "docs", "--file", "d.json"], ws).code, 0);
    ws.dump("d.json", [
      { ...tools[0]!, annotations: { readOnlyHint: false } },
      { ...tools[1]!, description: "Fetch one page by its id, then delete it." },
    ]);
    const before = fingerprints(JSON.parse(cli(["verify", "--format", "sarif"], ws).stdout));
    assert.ok(before.size >= 2, [...before.keys()].join());

    // Every object's members in reverse order, four-space indent: the same lock.
    const reverse = (v: unknown): unknown =>
      v !== null && typeof v === "object" && !Array.isArray(v)
        ? Object.fromEntries(
            Object.entries(v)
              .reverse()
              .map(([k, x]) => [k, reverse(x)]),
          )
        : v;
    const text = JSON.stringify(reverse(ws.lockJson()), null, 4) + "\n";
    ws.write("contractpin.lock", text);
    const r = cli(["verify", "--format", "sarif"], ws);
    assert.equal(r.code, 1, r.stderr);
    const log = JSON.parse(r.stdout);
    assert.ok(validateSarif(log), sarifErrors());
    const after = fingerprints(log);
    assert.deepEqual([...after.keys()].sort(), [...before.keys()].sort());
    const lines = text.split("\n");
    for (const [key, [print, line]] of after) {
      assert.equal(print, before.get(key)![0], key);
      const tool = key.split(" ")[1]!;
      assert.equal(lines[line - 1], `                ${JSON.stringify(tool)}: {`, key);
    }
  });

  it("one long tool name does not pad every drifted tool's line: the column is aligned to short names", () => {
    const ws = new Workspace();
    const tools = (d: string): Tool[] =>
      Array.from({ length: 50 }, (_, i) => ({ name: `t${i}`, description: `${d} ${i}` }));
    ws.dump("d.json", tools("Reads."));
    assert.equal(cli(["add", "s", "--file", "d.json"], ws).code, 0);
    // 1,024 invisible characters: 6,146 columns once escaped for display.
    ws.dump("d.json", [...tools("Writes."), { name: "\u200b".repeat(1024) }]);
    const r = cli(["verify"], ws);
    assert.equal(r.code, 1, r.stderr);
    const drifted = r.stdout.split("\n").filter((l) => l.startsWith("  DRIFTED "));
    assert.equal(drifted.length, 50);
    assert.ok(drifted.includes("  DRIFTED    t7   changed: description"), drifted[7]);
    for (const line of drifted) assert.ok(line.length < 60, JSON.stringify(line));
    assert.ok(r.stdout.includes(`  ADDED      "${"\\u200b".repeat(1024)}"\n`));
  });

  it("diff writes the same formats: markdown, SARIF (valid) to --output, a summary on the terminal", () => {
    const ws = new Workspace();
    ws.dump("d.json", baseTools());
    assert.equal(cli(["add", "docs", "--file", "d.json", "--lock", "old.lock"], ws).code, 0);
    ws.dump("d.json", [{ ...baseTools()[0]!, annotations: { readOnlyHint: false } }]);
    assert.equal(cli(["add", "docs", "--file", "d.json", "--lock", "new.lock"], ws).code, 0);

    const md = cli(["diff", "old.lock", "new.lock", "--format", "markdown"], ws);
    assert.equal(md.code, 1, md.stderr);
    assert.match(md.stdout, /^## contractpin: DIFFER\n/);
    assert.match(md.stdout, /^- \*\*high\*\* ` annotation-readonly-removed ` \(lock line \d+\)/m);

    const summary = ws.write("summary.md", "");
    const r = cli(
      ["diff", "old.lock", "new.lock", "--format", "sarif", "--output", "diff.sarif"],
      ws,
      { GITHUB_STEP_SUMMARY: summary },
    );
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stdout, /^DIFFER: .*\nreport written to diff\.sarif\n$/);
    const log = JSON.parse(ws.read("diff.sarif"));
    assert.ok(validateSarif(log), sarifErrors());
    assert.deepEqual(log.runs[0].automationDetails, { id: "contractpin/new.lock/" });
    const rules = log.runs[0].results.map((x: { ruleId: string }) => x.ruleId);
    assert.ok(rules.includes("annotation-readonly-removed") && rules.includes("tool-removed"));
    assert.equal(ws.read("summary.md"), md.stdout + "\n");
  });
});
