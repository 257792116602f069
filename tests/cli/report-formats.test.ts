// verify's report formats (issue 12), through the built CLI: --format
// text|json|sarif|github|markdown, --json as --format json, --output FILE
// with a summary on the terminal, --sarif FILE beside any format, the job
// summary under GITHUB_STEP_SUMMARY. The exit code never depends on the
// format: severity never passes a drift.
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { oneLine, runCli, type CliResult } from "../helpers/cli.js";
import { sarifErrors, validateSarif } from "../helpers/sarif-schema.js";
import { baseTools, Workspace, type Tool } from "../helpers/workspace.js";

const FORMATS = ["text", "json", "sarif", "github", "markdown"];
// Not inherited from a CI that runs these tests: each test sets what it means.
const NO_CI = {
  GITHUB_ACTIONS: undefined,
  GITHUB_STEP_SUMMARY: undefined,
  GITHUB_WORKSPACE: undefined,
};

function cli(
  args: string[],
  ws: Workspace,
  env: Record<string, string | undefined> = {},
): CliResult {
  return runCli(args, { cwd: ws.dir, env: { ...NO_CI, ...env } });
}

/** Server docs pinned from baseTools(), then served drifted: search loses readOnlyHint, one tool added. */
function drifted(): Workspace {
  const ws = new Workspace();
  ws.dump("docs.json", baseTools());
  assert.equal(cli(["add", "docs", "--file", "docs.json"], ws).code, 0);
  const [search, fetchPage] = baseTools() as [Tool, Tool];
  ws.dump("docs.json", [
    { ...search, annotations: { readOnlyHint: false } },
    fetchPage,
    { name: "upload", description: "Upload a file to https://example.com/x." },
  ]);
  return ws;
}

/** The line (1-based) of the line of `text` that is exactly `line`. */
function lineOf(text: string, line: string): number {
  const index = text.split("\n").indexOf(line);
  assert.ok(index >= 0, `no line ${JSON.stringify(line)}`);
  return index + 1;
}

describe("the format never changes the exit code", () => {
  it("drift is 1, a match is 0, unreachable is 1, in every format and with --json", () => {
    const ws = drifted();
    for (const format of FORMATS) {
      const r = cli(["verify", "--format", format], ws);
      assert.equal(r.code, 1, `${format}: ${r.stderr}`);
      assert.equal(r.stderr, "", format);
    }
    assert.equal(cli(["verify", "--json"], ws).code, 1);
    assert.equal(cli(["update"], ws).code, 0);
    for (const format of FORMATS)
      assert.equal(cli(["verify", "--format", format], ws).code, 0, format);
    rmSync(ws.path("docs.json"));
    for (const format of FORMATS) {
      const r = cli(["verify", "--format", format, "--sarif", "out.sarif"], ws);
      assert.equal(r.code, 1, `${format}: ${r.stderr}`);
    }
  });

  it("a low-severity drift alone still fails, in SARIF as a warning", () => {
    const ws = new Workspace();
    ws.dump("docs.json", baseTools());
    assert.equal(cli(["add", "docs", "--file", "docs.json"], ws).code, 0);
    ws.dump("docs.json", [baseTools()[0]!]);
    const r = cli(["verify", "--format", "sarif"], ws);
    assert.equal(r.code, 1, r.stderr);
    const results = JSON.parse(r.stdout).runs[0].results;
    assert.deepEqual(
      results.map((x: { ruleId: string; level: string }) => [x.ruleId, x.level]),
      [["tool-removed", "warning"]],
    );
  });
});

describe("choosing a format", () => {
  it("--json is --format json, byte for byte", () => {
    const ws = drifted();
    const a = cli(["verify", "--json"], ws);
    const b = cli(["verify", "--format", "json"], ws);
    assert.equal(a.stdout, b.stdout);
    assert.equal(JSON.parse(a.stdout).format, "contractpin-verify/1");
  });

  it("a bad --format, or --json with another format, is exit 2 before the lock is read", () => {
    const ws = new Workspace();
    const bad = cli(["verify", "--format", "xml"], ws);
    assert.equal(bad.code, 2);
    assert.equal(
      bad.stderr,
      "contractpin: --format takes one of text, json, sarif, github, markdown, not 'xml' (see 'contractpin verify --help')\n",
    );
    const both = cli(["verify", "--json", "--format", "sarif"], ws);
    assert.equal(both.code, 2);
    assert.equal(
      both.stderr,
      "contractpin: --json means --format json; it cannot go with --format sarif (see 'contractpin verify --help')\n",
    );
    const empty = cli(["verify", "--sarif="], ws);
    assert.equal(empty.code, 2);
    assert.ok(
      oneLine(empty.stderr) && empty.stderr.includes("--sarif needs a file name"),
      empty.stderr,
    );
  });

  it("verify --help documents the formats", () => {
    const r = runCli(["verify", "--help"]);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /--format FORMAT {6}the report: text \(default\), json/);
    assert.match(r.stdout, /--output FILE {8}write the report to FILE instead of stdout/);
    assert.match(r.stdout, /--sarif FILE {9}also write a SARIF report to FILE/);
    assert.match(r.stdout, /::stop-commands::/);
  });
});

describe("--format sarif", () => {
  it("is valid SARIF 2.1.0 with each result at its tool's line in the lock", () => {
    const ws = drifted();
    const r = cli(["verify", "--format", "sarif"], ws);
    assert.equal(r.code, 1, r.stderr);
    const log = JSON.parse(r.stdout);
    assert.ok(validateSarif(log), sarifErrors());
    const run = log.runs[0];
    assert.deepEqual(run.automationDetails, { id: "contractpin/contractpin.lock/" });
    assert.deepEqual(run.invocations, [{ executionSuccessful: true, exitCode: 1 }]);
    const lock = ws.read();
    const at = (rule: string) => {
      const result = run.results.find((x: { ruleId: string }) => x.ruleId === rule);
      assert.ok(result, `no ${rule} result`);
      return result.locations[0].physicalLocation;
    };
    assert.deepEqual(at("annotation-readonly-removed"), {
      artifactLocation: { uri: "contractpin.lock" },
      region: { startLine: lineOf(lock, `        "search": {`) },
    });
    // An added tool is not in the lock: its server's line.
    assert.equal(at("tool-added").region.startLine, lineOf(lock, `    "docs": {`));
    assert.equal(at("description-url").region.startLine, lineOf(lock, `    "docs": {`));
  });

  it("an unreachable server is a result at its line; another lock has another automation id", () => {
    const ws = drifted();
    assert.equal(cli(["update"], ws).code, 0);
    ws.dump("other.json", baseTools());
    assert.equal(cli(["add", "b-other", "--file", "other.json"], ws).code, 0);
    rmSync(ws.path("other.json"));
    const r = cli(["verify", "--format", "sarif"], ws);
    assert.equal(r.code, 1, r.stderr);
    const [result, ...rest] = JSON.parse(r.stdout).runs[0].results;
    assert.equal(rest.length, 0);
    assert.equal(result.ruleId, "server-unreachable");
    assert.equal(
      result.locations[0].physicalLocation.region.startLine,
      lineOf(ws.read(), `    "b-other": {`),
    );
    assert.match(
      result.message.text,
      /^server b-other: The server could not be read\. cannot read .*other\.json: no such file$/,
    );

    // Another lock in the same repository: its own automation id, its own URI.
    mkdirSync(ws.path("sub dir"));
    ws.dump("sub dir/d.json", baseTools());
    const sub = ["--lock", "sub dir/other.lock"];
    assert.equal(cli(["add", "docs", "--file", "sub dir/d.json", ...sub], ws).code, 0);
    ws.dump("sub dir/d.json", [baseTools()[0]!]);
    const other = JSON.parse(cli(["verify", "--format", "sarif", ...sub], ws).stdout).runs[0];
    assert.deepEqual(other.automationDetails, { id: "contractpin/sub dir/other.lock/" });
    assert.equal(
      other.results[0].locations[0].physicalLocation.artifactLocation.uri,
      "sub%20dir/other.lock",
    );
  });

  it("fingerprints stay when the lock's lines move, and are made of no line number", () => {
    const ws = drifted();
    const prints = () => {
      const r = cli(["verify", "--format", "sarif"], ws);
      const results = JSON.parse(r.stdout).runs[0].results;
      return new Map(
        results.map(
          (x: {
            ruleId: string;
            partialFingerprints: Record<string, string>;
            locations: { physicalLocation: { region: { startLine: number } } }[];
          }) => [
            x.ruleId,
            [
              x.partialFingerprints["contractpinFinding/v1"],
              x.locations[0]!.physicalLocation.region.startLine,
            ],
          ],
        ),
      ) as Map<string, [string, number]>;
    };
    const before = prints();
    // A server whose name sorts first pushes every line of docs down.
    ws.dump("a.json", baseTools());
    assert.equal(cli(["add", "a-first", "--file", "a.json"], ws).code, 0);
    const after = prints();
    for (const [rule, [print, line]] of before) {
      const [print2, line2] = after.get(rule)!;
      assert.equal(print2, print, rule);
      assert.ok(line2 > line, `${rule}: ${line} -> ${line2}`);
    }
  });
});

describe("--output and --sarif", () => {
  it("--output FILE gets the report the terminal would; the terminal gets the summary", () => {
    const ws = drifted();
    const direct = cli(["verify", "--format", "json"], ws);
    const r = cli(["verify", "--format", "json", "--output", "report.json"], ws);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(ws.read("report.json"), direct.stdout);
    assert.equal(
      r.stdout,
      [
        "FAIL: 1 drifted of 1 server (tools: 1 drifted, 1 added)",
        "report written to report.json",
        "to accept the change after reviewing it: contractpin update docs",
        "",
      ].join("\n"),
    );
  });

  it("--format github --sarif FILE --output FILE: every report from one reading of the servers", () => {
    const ws = new Workspace();
    const server = fileURLToPath(
      new URL("../fixtures/servers/github-evil-server.mjs", import.meta.url),
    );
    writeFileSync(ws.path("mode"), "clean");
    const add = cli(["add", "evil", "--", process.execPath, server, "mode", "starts"], ws);
    assert.equal(add.code, 0, add.stderr);
    writeFileSync(ws.path("mode"), "evil");
    writeFileSync(ws.path("starts"), "");
    const r = cli(
      ["verify", "--format", "github", "--sarif", "out.sarif", "--output", "gh.txt"],
      ws,
      {
        GITHUB_STEP_SUMMARY: ws.path("summary.md"),
      },
    );
    assert.equal(r.code, 1, r.stderr);
    assert.equal(ws.read("starts"), "start\n", "the server was started once");
    assert.ok(validateSarif(JSON.parse(ws.read("out.sarif"))));
    assert.match(ws.read("gh.txt"), /^::error file=contractpin\.lock,line=\d+,title=contractpin /m);
    assert.match(ws.read("summary.md"), /^## contractpin: FAIL$/m);
  });

  it("a report that cannot be written is exit 2 with one line", () => {
    const ws = drifted();
    const r = cli(["verify", "--sarif", "missing/dir/out.sarif"], ws);
    assert.equal(r.code, 2);
    assert.ok(
      r.stderr.endsWith(
        "contractpin: missing/dir/out.sarif: cannot write the report: no such file\n",
      ),
      r.stderr,
    );
  });
});

describe("--format github", () => {
  it("the text report, then an annotation per finding on the lock's line and one notice", () => {
    const ws = drifted();
    const r = cli(["verify", "--format", "github"], ws);
    assert.equal(r.code, 1, r.stderr);
    const text = cli(["verify"], ws).stdout;
    assert.ok(r.stdout.startsWith(text), r.stdout);
    const commands = r.stdout.slice(text.length).trimEnd().split("\n");
    const search = lineOf(ws.read(), `        "search": {`);
    assert.equal(
      commands[0],
      `::error file=contractpin.lock,line=${search},title=contractpin high%3A annotation-readonly-removed::server docs, tool search: readOnlyHint went from true to false or was removed. [high] annotation-readonly-removed at annotations/readOnlyHint: true -> false`,
    );
    assert.match(
      commands.at(-1)!,
      /^::notice title=contractpin::contractpin: \d+ findings \(\d+ errors?, \d+ warnings?\)$/,
    );
  });
});

describe("the job summary (GITHUB_STEP_SUMMARY)", () => {
  it("is appended in every format, and is the markdown format's report", () => {
    const ws = drifted();
    writeFileSync(ws.path("summary.md"), "earlier step\n");
    const env = { GITHUB_STEP_SUMMARY: ws.path("summary.md") };
    const r = cli(["verify", "--format", "sarif"], ws, env);
    assert.equal(r.code, 1, r.stderr);
    const md = cli(["verify", "--format", "markdown"], ws);
    assert.equal(ws.read("summary.md"), `earlier step\n${md.stdout}\n`);
    assert.match(md.stdout, /^\| ` docs ` \| ❌ drift \| 2 \| 1 \| 1 \| 0 \|$/m);
    assert.match(md.stdout, /^- \*\*high\*\* ` annotation-readonly-removed ` \(lock line \d+\): /m);
  });

  it("keeps the file under 1 MiB: truncated with a note, or left alone with a warning", () => {
    const ws = drifted();
    const MIB = 1024 * 1024;
    const path = ws.path("summary.md");
    const before = MIB - 1024 - 1100;
    writeFileSync(path, "x".repeat(before));
    const r = cli(["verify"], ws, { GITHUB_STEP_SUMMARY: path });
    assert.equal(r.code, 1, r.stderr);
    const size = statSync(path).size;
    assert.ok(size > before && size <= MIB - 1024, String(size));
    const added = readFileSync(path, "utf8").slice(before);
    assert.ok(added.startsWith("## contractpin: FAIL\n"), added);
    assert.match(added, /\n> \*\*Truncated:\*\* \d+ of \d+ parts of this report were left out/);

    writeFileSync(path, "x".repeat(MIB));
    const full = cli(["verify"], ws, { GITHUB_STEP_SUMMARY: path });
    assert.equal(full.code, 1);
    assert.equal(statSync(path).size, MIB);
    assert.equal(
      full.stderr,
      `contractpin: warning: ${path}: the job summary was not written: it is already close to GitHub's 1 MiB limit\n`,
    );
  });
});
