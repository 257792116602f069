// The CI report renderers of issue 12 as pure functions: SARIF 2.1.0
// (validated against the OASIS schema with a real validator), GitHub
// workflow commands (escaping, caps), Markdown (fences, truncation), the
// command-inert JSON, and the stop-commands guard around a run's output.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  compareServer,
  unreachableServer,
  type ServerFinding,
} from "../../src/core/contract/compare.js";
import { contractOf } from "../../src/core/contract/contract.js";
import { digestTools } from "../../src/core/contract/digest.js";
import { classifyServer } from "../../src/core/findings/classify.js";
import { toFinding } from "../../src/core/findings/finding.js";
import { allRules } from "../../src/core/findings/rules.js";
import { lockLines } from "../../src/core/lock/lock-lines.js";
import type { ServerExplained, ToolExplained } from "../../src/engine/explain-server.js";
import {
  ANNOTATION_CAP,
  escapeData,
  escapeProperty,
  renderAnnotations,
} from "../../src/cli/render/github.js";
import { codeFence, codeSpan, renderMarkdown } from "../../src/cli/render/markdown.js";
import {
  inertJson,
  reportItems,
  type DriftReport,
  type ReportItem,
} from "../../src/cli/render/report-model.js";
import { FINGERPRINT_KEY, renderSarif } from "../../src/cli/render/sarif.js";
import { guardWorkflowCommands } from "../../src/cli/workflow-guard.js";
import type { Io } from "../../src/cli/io.js";
import { sarifErrors, validateSarif } from "../helpers/sarif-schema.js";

const HOSTILE = "::set-output name=x::y\n::add-mask::hunter2\r\n##[error]v1 50% a,b:c ```` `x`";

type Tool = { name: string; description?: string } & Record<string, unknown>;

/** A report built as verify builds it: compare, classify, explain; the lock text is the writer's. */
function report(
  pinned: Tool[],
  live: Tool[],
  extra: Partial<DriftReport> = {},
  unreachable = false,
): DriftReport {
  const p = digestTools(pinned as never);
  const l = digestTools(live as never);
  const finding: ServerFinding = unreachable
    ? unreachableServer("docs", p, `spawn failed: ${HOSTILE}`, [HOSTILE])
    : compareServer("docs", p, l, { allowNew: extra.allowNew ?? false });
  const before = pinned.map((t) => contractOf(t as never));
  const after = live.map((t) => contractOf(t as never));
  const findings = unreachable
    ? []
    : classifyServer(
        before.filter((c) =>
          finding.tools.some((t) => t.name === c.name && t.status !== "unchanged"),
        ),
        after.filter((c) =>
          finding.tools.some((t) => t.name === c.name && t.status !== "unchanged"),
        ),
        { server: "docs" },
      );
  const tools = new Map<string, ToolExplained>();
  for (const t of finding.tools) {
    if (t.status === "unchanged") continue;
    const entry: ToolExplained = { findings: findings.filter((f) => f.tool === t.name) };
    const b = before.find((c) => c.name === t.name);
    const a = after.find((c) => c.name === t.name);
    if (b !== undefined) entry.before = b;
    if (a !== undefined) entry.after = a;
    tools.set(t.name, entry);
  }
  const explained: ServerExplained = { tools, findings: [] };
  const lockText = lockTextFor({ docs: pinned.map((t) => t.name) });
  return {
    lockFile: "contractpin.lock",
    lockText,
    findings: [finding],
    explained: new Map([["docs", explained]]),
    exitCode: finding.status === "ok" ? 0 : 1,
    allowNew: false,
    verbose: false,
    ...extra,
  };
}

/** A lock text in the writer's layout with these servers and tools, and the line of each key. */
function lockTextFor(servers: Record<string, string[]>, pad = 0): string {
  const lines = ["{", ...Array(pad).fill('  "x": 1,'), '  "servers": {'];
  for (const [server, tools] of Object.entries(servers)) {
    lines.push(`    ${JSON.stringify(server)}: {`, `      "tools": {`);
    for (const tool of tools) lines.push(`        ${JSON.stringify(tool)}: {},`);
    lines.push("      }", "    },");
  }
  lines.push("  }", "}");
  return lines.join("\n");
}

const search: Tool = {
  name: "search",
  description: "Search the index.",
  inputSchema: { type: "object", properties: { q: { type: "string" } } },
  annotations: { readOnlyHint: true },
};
const gone: Tool = { name: "gone", description: "Old tool." };
const drifted: Tool = {
  ...search,
  description: `Search the index. ${HOSTILE}`,
  inputSchema: {
    type: "object",
    properties: { q: { type: "string" }, cookie: { type: "string" } },
  },
  annotations: { readOnlyHint: false },
};
const added: Tool = { name: "new`tool|<b>", description: `Added. ${HOSTILE}` };

function items(r: DriftReport): ReportItem[] {
  return reportItems(r, lockLines(r.lockText ?? ""));
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a parsed SARIF log, read freely
function sarifOf(r: DriftReport): { text: string; log: Record<string, any> } {
  const text = renderSarif(items(r), {
    lockUri: "contractpin.lock",
    automationId: "contractpin/contractpin.lock/",
    version: "0.1.0",
    exitCode: r.exitCode,
  });
  return { text, log: JSON.parse(text) };
}

describe("SARIF 2.1.0", () => {
  it("validates against the OASIS schema: drift, added, removed, unreachable, clean", () => {
    const cases = [
      report([search, gone], [drifted, added]),
      report([search], [search]),
      report([search], [search], {}, true),
      report([search], [search, added], { allowNew: true }),
    ];
    for (const r of cases) {
      const { log } = sarifOf(r);
      const valid = validateSarif(log);
      assert.ok(valid, sarifErrors());
      assert.equal(log["version"], "2.1.0");
    }
    // The validator is real: a broken log fails it.
    const { log } = sarifOf(cases[0]!);
    log["runs"][0]["results"][0]["level"] = "fatal";
    assert.equal(validateSarif(log), false);
    delete log["version"];
    assert.equal(validateSarif(log), false);
  });

  it("lists every rule with descriptions, help as text and Markdown, and security-severity", () => {
    const { log } = sarifOf(report([search], [search]));
    const rules = log["runs"][0]["tool"]["driver"]["rules"];
    assert.deepEqual(
      rules.map((r: { id: string }) => r.id),
      allRules().map((r) => r.id),
    );
    const expected = { critical: "9.5", high: "8.0", medium: "5.5", low: "3.0" };
    for (const [i, rule] of allRules().entries()) {
      const r = rules[i];
      assert.equal(r.shortDescription.text, rule.title);
      assert.equal(r.fullDescription.text, rule.help);
      assert.ok(r.help.text.startsWith(rule.help));
      assert.ok(r.help.markdown.includes(`**${rule.title}**`));
      assert.equal(r.properties["security-severity"], expected[rule.severity]);
    }
    assert.deepEqual(log["runs"][0]["automationDetails"], { id: "contractpin/contractpin.lock/" });
    assert.deepEqual(log["runs"][0]["results"], []);
  });

  it("locates each result at its tool's line (the server's for an added tool), unreachable too", () => {
    const r = report([search, gone], [drifted, added]);
    const text = r.lockText!.split("\n");
    const line = (key: string) => text.findIndex((l) => l.startsWith(`${key}: {`)) + 1;
    const { log } = sarifOf(r);
    const results = log["runs"][0]["results"];
    const at = (rule: string) =>
      results.find((x: { ruleId: string }) => x.ruleId === rule).locations[0].physicalLocation;
    assert.deepEqual(at("annotation-readonly-removed"), {
      artifactLocation: { uri: "contractpin.lock" },
      region: { startLine: line('        "search"') },
    });
    assert.equal(at("tool-removed").region.startLine, line('        "gone"'));
    assert.equal(at("tool-added").region.startLine, line('    "docs"'));
    assert.deepEqual(
      new Set(results.map((x: { ruleId: string }) => x.ruleId)),
      new Set([
        "annotation-readonly-removed",
        "input-property-added",
        "tool-added",
        "description-changed",
        "tool-removed",
      ]),
    );
    // Most severe first.
    const order = ["critical", "high", "medium", "low"];
    const severities = results.map((x: { properties: { severity: string } }) =>
      order.indexOf(x.properties.severity),
    );
    assert.deepEqual(
      severities,
      [...severities].sort((a: number, b: number) => a - b),
    );

    const down = report([search], [search], {}, true);
    const { log: downLog } = sarifOf(down);
    const [result] = downLog["runs"][0]["results"];
    assert.equal(result.ruleId, "server-unreachable");
    assert.equal(result.level, "error");
    assert.equal(result.locations[0].physicalLocation.region.startLine, 3);
    assert.match(
      result.message.text,
      /^server docs: The server could not be read\. spawn failed: /,
    );
  });

  it("fingerprints from rule, server, tool, pointer and digests: lines moved keep them, a new digest changes them", () => {
    const r = report([search, gone], [drifted, added]);
    const moved = { ...r, lockText: lockTextFor({ docs: ["gone", "search"] }, 7) };
    const prints = (x: DriftReport) =>
      sarifOf(x).log["runs"][0]["results"].map(
        (res: { partialFingerprints: Record<string, string> }) =>
          res.partialFingerprints[FINGERPRINT_KEY],
      );
    const lines = (x: DriftReport) =>
      sarifOf(x).log["runs"][0]["results"].map(
        (res: { locations: { physicalLocation: { region: { startLine: number } } }[] }) =>
          res.locations[0]!.physicalLocation.region.startLine,
      );
    assert.notDeepEqual(lines(r), lines(moved));
    assert.deepEqual(prints(r), prints(moved));
    assert.equal(new Set(prints(r)).size, prints(r).length, "one fingerprint per finding");
    for (const p of prints(r)) assert.match(p, /^[0-9a-f]{64}$/);
    const other = report([search, gone], [{ ...drifted, description: "Another change." }, added]);
    const a = prints(r)[0];
    const b = prints(other)[0];
    assert.notEqual(a, b, "a different live digest is a different finding");
  });

  it("marks what --allow-new allowed as a note, and a low finding as a warning", () => {
    const { log } = sarifOf(report([search], [search, added], { allowNew: true }));
    const levels = log["runs"][0]["results"].map((x: { level: string }) => x.level);
    assert.ok(levels.length > 0);
    assert.ok(
      levels.every((l: string) => l === "note"),
      levels.join(),
    );
    const { log: low } = sarifOf(report([search, gone], [search]));
    assert.deepEqual(
      low["runs"][0]["results"].map((x: { ruleId: string; level: string }) => [x.ruleId, x.level]),
      [["tool-removed", "warning"]],
    );
  });

  it("reports a drifted tool without a snapshot as tool-drifted, its fields unknown (the field digests only claim them)", () => {
    const r = report([search], [drifted]);
    r.explained = undefined;
    const { log } = sarifOf(r);
    const [result] = log["runs"][0]["results"];
    assert.equal(result.ruleId, "tool-drifted");
    assert.match(
      result.message.text,
      /\. changed: fields unknown \(unconfirmed by any snapshot: annotations, description, inputSchema\)$/,
    );
  });

  it("holds no `##[` and no hidden character, and parses back to the server's text", () => {
    const r = report([search, gone], [{ ...drifted, name: "search" }, added]);
    const { text, log } = sarifOf(r);
    assert.ok(!text.includes("##["));
    assert.ok(!/^\s*::/m.test(text));
    assert.ok(JSON.stringify(log).includes("new`tool|<b>"));
  });
});

describe("inertJson", () => {
  it("escapes ##[ and hidden characters, and parses back exactly", () => {
    const value = {
      a: "##[set-output name=x;]y",
      b: "###[x",
      c: "\\##[",
      d: "\u202e\u200b\u2028",
      e: "a\nb",
    };
    const json = inertJson(JSON.stringify(value, null, 2));
    assert.ok(!json.includes("##["), json);
    assert.ok(!/[\u202e\u200b\u2028]/.test(json));
    assert.deepEqual(JSON.parse(json), value);
  });
});

/** A workflow command line as the runner's TryParseV2 reads it: name, properties, data. */
function parseCommand(line: string): { name: string; props: Record<string, string>; data: string } {
  const trimmed = line.trimStart();
  assert.ok(trimmed.startsWith("::"), line);
  const end = trimmed.indexOf("::", 2);
  assert.ok(end > 0, line);
  const info = trimmed.slice(2, end);
  const space = info.indexOf(" ");
  const name = space < 0 ? info : info.slice(0, space);
  const props: Record<string, string> = {};
  if (space > 0) {
    for (const pair of info.slice(space + 1).split(",")) {
      const [k, v] = pair.split(/=(.*)/s);
      props[k!] = unescape(v!, true);
    }
  }
  return { name, props, data: unescape(trimmed.slice(end + 2), false) };
}

function unescape(text: string, property: boolean): string {
  let out = text.replaceAll("%0D", "\r").replaceAll("%0A", "\n");
  if (property) out = out.replaceAll("%3A", ":").replaceAll("%2C", ",");
  return out.replaceAll("%25", "%");
}

describe("GitHub workflow commands", () => {
  it("escapes %, CR and LF in data, and also : and , in properties", () => {
    assert.equal(escapeData("50% a\r\nb:c,d"), "50%25 a%0D%0Ab:c,d");
    assert.equal(escapeProperty("50% a\r\nb:c,d"), "50%25 a%0D%0Ab%3Ac%2Cd");
    assert.equal(escapeData("%0A"), "%250A");
  });

  it("one line per annotation at the lock's line, values round-trip, server text cannot start a command", () => {
    const r = report([search, gone], [drifted, added]);
    const out = renderAnnotations(items(r), { file: "dir,x/contract:pin.lock" });
    const lines = out.trimEnd().split("\n");
    const parsed = lines.map(parseCommand);
    for (const c of parsed.slice(0, -1)) {
      assert.ok(c.name === "error" || c.name === "warning", c.name);
      assert.equal(c.props["file"], "dir,x/contract:pin.lock");
      assert.match(c.props["line"]!, /^\d+$/);
      assert.match(c.props["title"]!, /^contractpin (critical|high|medium|low): [a-z-]+$/);
    }
    assert.equal(parsed.at(-1)!.name, "notice");
    // The added tool's name came through whole, as data of one command.
    assert.ok(parsed.some((c) => c.data.includes("new`tool|<b>")));
    // The removed tool is low: a warning; the readOnly flip is high: an error.
    const kinds = Object.fromEntries(parsed.map((c) => [c.props["title"], c.name]));
    assert.equal(kinds["contractpin low: tool-removed"], "warning");
    assert.equal(kinds["contractpin high: annotation-readonly-removed"], "error");
  });

  it(`at most ${ANNOTATION_CAP} errors and ${ANNOTATION_CAP} warnings, then one notice with the totals`, () => {
    // 12 added tools (medium: errors), 13 removed tools (low: warnings), each
    // of its own server, so that no two findings are one group.
    const item = (i: number, rule: "tool-added" | "tool-removed"): ReportItem => ({
      finding: toFinding({ rule }, `t${i}`, `s${i}`),
      server: `s${i}`,
      tool: `t${i}`,
      failing: true,
      line: i + 1,
    });
    const all = [
      ...Array.from({ length: 12 }, (_, i) => item(i, "tool-added")),
      ...Array.from({ length: 13 }, (_, i) => item(100 + i, "tool-removed")),
    ];
    const parsed = renderAnnotations(all, { file: "contractpin.lock" })
      .trimEnd()
      .split("\n")
      .map(parseCommand);
    assert.equal(parsed.filter((c) => c.name === "error").length, ANNOTATION_CAP);
    assert.equal(parsed.filter((c) => c.name === "warning").length, ANNOTATION_CAP);
    const notices = parsed.filter((c) => c.name === "notice");
    assert.equal(notices.length, 1);
    assert.match(
      notices[0]!.data,
      /^contractpin: 25 findings \(12 errors, 13 warnings\); annotated: the first 10 of each/,
    );
    assert.equal(renderAnnotations([], { file: "x" }), "");
  });

  it("identical findings of several tools of one server are one annotation naming each tool", () => {
    const many = (n: number, prefix: string): Tool[] =>
      Array.from({ length: n }, (_, i) => ({
        name: `${prefix}${String(i).padStart(2, "0")}`,
        description: `The ${prefix} tool number ${i}.`,
      }));
    // 12 added tools, 13 removed tools of server docs (none a rename): two groups.
    const r = report(many(13, "old"), many(12, "new"));
    const parsed = renderAnnotations(items(r), { file: "contractpin.lock" })
      .trimEnd()
      .split("\n")
      .map(parseCommand);
    assert.deepEqual(
      parsed.map((c) => [c.name, c.props["title"]]),
      [
        ["error", "contractpin medium: tool-added (12 tools)"],
        ["warning", "contractpin low: tool-removed (13 tools)"],
        ["notice", "contractpin"],
      ],
    );
    const names = Array.from({ length: 13 }, (_, i) => `old${String(i).padStart(2, "0")}`);
    assert.ok(parsed[1]!.data.startsWith(`server docs, 13 tools: ${names.join(", ")}: `));
    // The first tool's line in the lock.
    const first = items(r).find((i) => i.tool === "old00")!;
    assert.equal(parsed[1]!.props["line"], String(first.line));
    assert.equal(parsed[2]!.data, "contractpin: 25 findings (12 errors, 13 warnings)");
  });
});

describe("Markdown summary", () => {
  it("fences are longer than any backtick run of the text inside", () => {
    assert.equal(codeFence("a ``` b\n`````"), "``````text\na ``` b\n`````\n``````");
    assert.equal(codeFence("plain"), "```text\nplain\n```");
    assert.equal(codeSpan("a``b"), "``` a``b ```");
    assert.equal(codeSpan("a|b", true), "` a\\|b `");
  });

  it("a table of servers, then each finding, with server text only inside code", () => {
    const r = report([search, gone], [drifted, added]);
    const md = renderMarkdown(r, items(r), 1024 * 1024);
    assert.match(md, /^## contractpin: FAIL\n/);
    assert.match(md, /\| Server \| Status \| Pinned tools \| Drifted \| Added \| Removed \|/);
    assert.match(md, /^\| ` docs ` \| ❌ drift \| 2 \| 1 \| 1 \| 1 \|$/m);
    assert.match(md, /^- \*\*high\*\* ` annotation-readonly-removed ` \(lock line \d+\): /m);
    // The server's HTML is in a code span, never raw Markdown.
    const outside = md
      .replace(/^(`{3,})\w*\n[\s\S]*?\n\1$/gm, "")
      .replace(/(`+) [^\n]*? \1(?!`)/g, "");
    for (const text of ["<b>", "hunter2", "set-output"])
      assert.ok(!outside.includes(text), outside);
    assert.ok(md.includes("hunter2"));
    // Its fence-breaking backticks stay inside a longer fence.
    const fence = /^(`{3,})text$/m.exec(md)![1]!;
    assert.ok(fence.length > 4, fence);
  });

  it("stays under its byte limit, with a note saying what was left out", () => {
    const tools = (n: number, p: string, d: string): Tool[] =>
      Array.from({ length: n }, (_, i) => ({ name: `${p}${i}`, description: d.repeat(50) }));
    const r = report(tools(300, "t", "x"), tools(300, "u", "é"));
    const full = renderMarkdown(r, items(r), 1024 * 1024 * 64);
    assert.ok(Buffer.byteLength(full) > 20000, String(Buffer.byteLength(full)));
    const cut = renderMarkdown(r, items(r), 20000);
    assert.ok(Buffer.byteLength(cut) <= 20000, String(Buffer.byteLength(cut)));
    assert.match(
      cut,
      /\n> \*\*Truncated:\*\* \d+ of \d+ parts of this report were left out to stay under 20000 bytes/,
    );
    assert.ok(cut.startsWith("## contractpin: FAIL"));
  });
});

/** An Io that records each stream. */
function recorder(): Io & { stdout: string; stderr: string } {
  const io = {
    stdout: "",
    stderr: "",
    color: false,
    interactive: false,
    out: async (t: string) => void (io.stdout += t),
    err: async (t: string) => void (io.stderr += t),
  };
  return io;
}

describe("the stop-commands guard", () => {
  it("opens a block on each stream's first write, closes it once, on the stream written last", async () => {
    const base = recorder();
    let n = 0;
    const io = guardWorkflowCommands(base, {
      token: () => `t${++n}`,
      plain: { out: false, err: false },
    });
    await io.err("warning: ::add-mask::x\n");
    await io.out("report\n  ::error::y\n");
    await io.err("partial");
    await io.end();
    assert.equal(base.stderr, "::stop-commands::t1\nwarning: ::add-mask::x\npartial\n::t1::\n");
    assert.equal(base.stdout, "::stop-commands::t1\nreport\n  ::error::y\n");
  });

  it("ends the block before contractpin's own commands, opens a new one after; data is written as is", async () => {
    const base = recorder();
    let n = 0;
    const io = guardWorkflowCommands(base, {
      token: () => `t${++n}`,
      plain: { out: false, err: false },
    });
    await io.out("text\n");
    await io.commands!("::error file=a,line=1::m\n");
    await io.err("late\n");
    await io.data!("{}\n");
    await io.end();
    assert.equal(base.stdout, "::stop-commands::t1\ntext\n::t1::\n::error file=a,line=1::m\n{}\n");
    assert.equal(base.stderr, "::stop-commands::t2\nlate\n::t2::\n");
  });

  it("writes a stream the runner does not read (a regular file) as it is", async () => {
    const base = recorder();
    const io = guardWorkflowCommands(base, { plain: { out: true, err: false } });
    await io.out("::x::\n");
    await io.err("e\n");
    await io.end();
    assert.equal(base.stdout, "::x::\n");
    assert.match(base.stderr, /^::stop-commands::([0-9a-f]{32})\ne\n::\1::\n$/);
  });

  it("makes a fresh token each time", async () => {
    const tokens = new Set<string>();
    for (let i = 0; i < 5; i++) {
      const base = recorder();
      const io = guardWorkflowCommands(base, { plain: { out: false, err: false } });
      await io.out("x\n");
      tokens.add(/::stop-commands::(\w+)/.exec(base.stdout)![1]!);
    }
    assert.equal(tokens.size, 5);
  });
});
