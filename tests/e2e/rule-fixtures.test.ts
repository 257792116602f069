// One fixture pair for every rule id of the catalogue (issue 11), through the
// built CLI: `contractpin diff before.json after.json` (two locks for
// server-source-changed, `verify` of a server that cannot start for
// server-unreachable, `audit --fail-on medium` of a server run through a
// package runner without an exact version for package-runner-unpinned, `verify` beside a client
// config for the config rules), asserting exit 1, the finding's line in the text report
// exactly as written by hand in tests/fixtures/drift/rules.json, and the
// finding's rule id, severity, pointer and values in --json.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { RULES, type RuleId } from "../../src/core/findings/rules.js";
import { mkdirSync } from "node:fs";
import { runCli, type CliResult } from "../helpers/cli.js";
import { SERVERS } from "../helpers/servers.js";
import { Workspace } from "../helpers/workspace.js";

/** What the report should show for a rule: its text line, and its finding minus rule and severity. */
interface Expected {
  line: string;
  finding: Record<string, unknown>;
}

interface Fixture extends Expected {
  severity: string;
  /** Every rule id the pair gives, in any order. */
  rules: string[];
  /** A tool rule: two tools/list results, compared by `diff`. */
  before?: unknown;
  after?: unknown;
  /** server-source-changed and server-unreachable: the tools/list result a lock pins. */
  tools?: unknown;
  /** server-source-changed: how each of the two locks reaches the server. */
  old_source?: Record<string, unknown>;
  new_source?: Record<string, unknown>;
  /** server-unreachable: how the lock reaches a server that cannot be read. */
  source?: Record<string, unknown>;
  /**
   * package-runner-unpinned: how the lock reaches the server, for
   * `audit --fail-on medium` (a first-sight finding: no diff or verify gives it).
   */
  audit_source?: Record<string, unknown>;
  /**
   * tool-drifted: `tools` pinned with --no-snapshot, then `after` compared by
   * `diff`. It exists for the CI formats (a drift no snapshot explains must not
   * be missing from SARIF or the annotations): `line` is its annotation in
   * `--format github`, `finding` its SARIF result's properties.
   */
  no_snapshot?: boolean;
  /**
   * A config rule (SPEC.md 11): the `.mcp.json` beside a lock that pins docs
   * as the fake stdio server (`__NODE__`, `__FAKE__`), or "directory" for a
   * folder of that name.
   */
  config?: unknown;
}

const FIXTURES: Record<string, Fixture> = JSON.parse(
  readFileSync(new URL("../fixtures/drift/rules.json", import.meta.url), "utf8"),
).rules;

interface JsonFinding {
  rule: string;
  severity: string;
  [key: string]: unknown;
}
interface Report {
  exit_code: number;
  servers: { findings?: JsonFinding[]; tools: { findings?: JsonFinding[] }[] }[];
  configs?: { findings: JsonFinding[] };
}

interface Run {
  text: CliResult;
  json: CliResult;
  /** Every finding of the JSON report: the servers' own, then their tools'. */
  findings: JsonFinding[];
}

const SOURCE_KEYS = ["transport", "command", "env", "cwd", "url", "headers", "path"];

/** The lock pinned in `ws`, with server docs reached by `source` instead. */
function withSource(ws: Workspace, source: Record<string, unknown>): string {
  const lock = ws.lockJson();
  const kept = Object.entries(lock.servers["docs"]!).filter(([key]) => !SOURCE_KEYS.includes(key));
  lock.servers["docs"] = { ...Object.fromEntries(kept), ...source };
  return JSON.stringify(lock, null, 2);
}

/** Runs the fixture's CLI command, as text and as --json. */
/** `text` with the placeholders of a config fixture replaced. */
function placed<T>(value: T): T {
  const text = JSON.stringify(value)
    .replaceAll("__NODE__", process.execPath)
    .replaceAll("__FAKE__", SERVERS.fakeStdio);
  return JSON.parse(text) as T;
}

function run(fixture: Fixture): Run {
  const ws = new Workspace();
  let args: string[];
  if (fixture.no_snapshot === true) {
    ws.write("docs.json", JSON.stringify(fixture.tools));
    const add = runCli(["add", "docs", "--file", "docs.json", "--no-snapshot"], { cwd: ws.dir });
    assert.equal(add.code, 0, add.stderr);
    ws.write("after.json", JSON.stringify(fixture.after));
    const args = ["diff", "contractpin.lock", "after.json"];
    const text = runCli([...args, "--format", "github"], { cwd: ws.dir });
    const json = runCli([...args, "--format", "sarif"], { cwd: ws.dir });
    const sarif = JSON.parse(json.stdout) as {
      runs: { results: { ruleId: string; properties: Record<string, unknown> }[] }[];
    };
    const findings = sarif.runs[0]!.results.map((r) => ({
      rule: r.ruleId,
      severity: r.properties["severity"] as string,
      // A finding about the server (surface-drifted) has no tool.
      ...(r.properties["tool"] === undefined ? {} : { tool: r.properties["tool"] }),
    }));
    return { text, json, findings };
  }
  if (fixture.config !== undefined) {
    const add = runCli(["add", "docs", "--", process.execPath, SERVERS.fakeStdio, "ok"], {
      cwd: ws.dir,
    });
    assert.equal(add.code, 0, add.stderr);
    if (fixture.config === "directory") mkdirSync(ws.path(".mcp.json"));
    else ws.write(".mcp.json", JSON.stringify(placed(fixture.config)));
    args = ["verify"];
  } else if (fixture.before !== undefined) {
    ws.write("before.json", JSON.stringify(fixture.before));
    ws.write("after.json", JSON.stringify(fixture.after));
    args = ["diff", "before.json", "after.json"];
  } else {
    ws.write("docs.json", JSON.stringify(fixture.tools));
    const add = runCli(["add", "docs", "--file", "docs.json"], { cwd: ws.dir });
    assert.equal(add.code, 0, add.stderr);
    if (fixture.audit_source !== undefined) {
      ws.write("contractpin.lock", withSource(ws, fixture.audit_source));
      args = ["audit", "--fail-on", "medium"];
    } else if (fixture.source !== undefined) {
      const source = structuredClone(fixture.source);
      // The fixture's "node" is this node, whatever PATH holds.
      const command = source["command"] as string[];
      if (command[0] === "node") command[0] = process.execPath;
      ws.write("contractpin.lock", withSource(ws, source));
      args = ["verify"];
    } else {
      ws.write("old.lock", withSource(ws, fixture.old_source!));
      ws.write("new.lock", withSource(ws, fixture.new_source!));
      args = ["diff", "old.lock", "new.lock"];
    }
  }
  const text = runCli(args, { cwd: ws.dir });
  const json = runCli([...args, "--json"], { cwd: ws.dir });
  const report = JSON.parse(json.stdout) as Report;
  assert.equal(report.exit_code, 1);
  const findings = [
    ...report.servers.flatMap((s) => [
      ...(s.findings ?? []),
      // audit's servers count their tools; its findings are the server's.
      ...(Array.isArray(s.tools) ? s.tools.flatMap((t) => t.findings ?? []) : []),
    ]),
    ...(report.configs?.findings ?? []),
  ];
  return { text, json, findings };
}

const runs = new Map<string, Run>();
/** Each fixture's runs, once. */
function runOf(rule: string): Run {
  let r = runs.get(rule);
  if (r === undefined) {
    r = run(FIXTURES[rule]!);
    runs.set(rule, r);
  }
  return r;
}

function assertShows(rule: string, r: Run, severity: string, expected: Expected): void {
  const line = placed(expected.line);
  assert.ok(
    r.text.stdout.split("\n").includes(line),
    `expected the line\n${line}\nin\n${r.text.stdout}`,
  );
  const found = r.findings.filter((f) => f.rule === rule);
  assert.equal(found.length, 1, JSON.stringify(r.findings));
  assert.deepEqual(found[0], { rule, severity, ...placed(expected.finding) });
}

/**
 * Rules whose CLI fixture needs a real registry on loopback (a republished
 * package, a re-pushed tag): proved through the CLI in the test named, and by
 * a fixture pair in tests/core/findings/classify.test.ts.
 */
const THROUGH_A_REGISTRY: Partial<Record<RuleId, string>> = {
  "artifact-changed": "tests/e2e/artifacts.test.ts (verdaccio, a Python index, docker-registry)",
  "artifact-unchecked": "tests/e2e/artifacts.test.ts (a registry stopped or unreachable)",
};

describe("rule fixtures: one pair per rule id, through the CLI", () => {
  it("cover exactly the catalogue's rule ids, with its severities", () => {
    const covered = [...Object.keys(FIXTURES), ...Object.keys(THROUGH_A_REGISTRY)];
    assert.deepEqual(covered.sort(), Object.keys(RULES).sort());
    for (const [rule, fixture] of Object.entries(FIXTURES)) {
      assert.equal(fixture.severity, RULES[rule as RuleId].severity, rule);
    }
  });

  for (const [rule, fixture] of Object.entries(FIXTURES)) {
    it(`${rule}: exit 1, [${fixture.severity}] and its line`, () => {
      const r = runOf(rule);
      assert.equal(r.text.code, 1, r.text.stdout + r.text.stderr);
      assert.equal(r.json.code, 1, r.json.stderr);
      if (fixture.no_snapshot === true) {
        // The one warning that says why the drift cannot be shown.
        assert.match(
          r.text.stderr,
          /^contractpin: warning: contractpin\.lock: no contract snapshots at contractpin\.contracts\.json; the changed fields are unknown/,
        );
        assert.equal(r.text.stderr.split("\n").length, 2, r.text.stderr);
      } else if (fixture.source === undefined && fixture.config === undefined) {
        // diff and audit read no server: nothing to say on stderr.
        assert.equal(r.text.stderr, "");
        assert.equal(r.json.stderr, "");
      } else {
        assert.doesNotMatch(r.text.stderr, /\n\s+at /);
      }
      assert.deepEqual(r.findings.map((f) => f.rule).sort(), [...fixture.rules].sort());
      assertShows(rule, r, fixture.severity, fixture);
    });
  }
});
