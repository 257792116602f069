// The GitHub Action (action.yml), run step by step as the runner runs a
// composite action: inputs from their defaults and the workflow's `with:`,
// `${{ inputs.X }}` expressions in `env:` and `working-directory:` only, each
// `run:` through `bash --noprofile --norc -eo pipefail`, GITHUB_ACTION_PATH,
// GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, GITHUB_WORKSPACE and RUNNER_TEMP set, and
// the action's outputs read back from GITHUB_OUTPUT through their `value:`
// expressions. On a clean and on a drifting fixture.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join, resolve } from "node:path";
import { describe, it } from "node:test";
import { load } from "js-yaml";
import { ROOT, runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/cleanup.js";
import { baseTools, Workspace } from "../helpers/workspace.js";

interface Action {
  inputs: Record<string, { default?: string }>;
  outputs: Record<string, { value: string }>;
  runs: {
    using: string;
    steps: {
      id?: string;
      shell: string;
      run: string;
      env?: Record<string, string>;
      "working-directory"?: string;
    }[];
  };
}

const ACTION = load(readFileSync(join(ROOT, "action.yml"), "utf8")) as Action;

interface ActionRun {
  /** The exit code of the step that ended the run (the last one, or the first that failed). */
  code: number | null;
  stdout: string;
  stderr: string;
  outputs: Record<string, string>;
  summary: string;
}

/** Reads GITHUB_OUTPUT: `name=value` lines and `name<<DELIMITER` blocks. */
function parseOutputs(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const block = /^([^=<]+)<<(.+)$/.exec(line);
    if (block) {
      const end = lines.indexOf(block[2]!, i + 1);
      out[block[1]!] = lines.slice(i + 1, end).join("\n");
      i = end;
    } else if (line.includes("=")) {
      out[line.slice(0, line.indexOf("="))] = line.slice(line.indexOf("=") + 1);
    }
  }
  return out;
}

/** Runs the action in `workspace` with `with` as its inputs. */
function runAction(workspace: string, given: Record<string, string> = {}): ActionRun {
  const temp = tempDir("contractpin-runner-");
  const outputFile = join(temp, "output");
  const summaryFile = join(temp, "summary.md");
  writeFileSync(outputFile, "");
  writeFileSync(summaryFile, "");
  const inputs: Record<string, string> = {};
  for (const [name, spec] of Object.entries(ACTION.inputs)) inputs[name] = spec.default ?? "";
  Object.assign(inputs, given);
  const expand = (text: string, stepOutputs: Record<string, Record<string, string>> = {}) =>
    text.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_, expr: string) => {
      const input = /^inputs\.([\w-]+)$/.exec(expr);
      if (input) return inputs[input[1]!] ?? "";
      const output = /^steps\.([\w-]+)\.outputs\.([\w-]+)$/.exec(expr);
      if (output) return stepOutputs[output[1]!]?.[output[2]!] ?? "";
      throw new Error(`unexpected expression ${expr}`);
    });
  let stdout = "";
  let stderr = "";
  let code: number | null = 0;
  const stepOutputs: Record<string, Record<string, string>> = {};
  for (const step of ACTION.runs.steps) {
    writeFileSync(outputFile, "");
    const env: Record<string, string | undefined> = {
      ...process.env,
      NO_COLOR: undefined,
      FORCE_COLOR: undefined,
      GITHUB_ACTIONS: "true",
      GITHUB_ACTION_PATH: ROOT,
      GITHUB_OUTPUT: outputFile,
      GITHUB_STEP_SUMMARY: summaryFile,
      GITHUB_WORKSPACE: workspace,
      RUNNER_TEMP: temp,
    };
    for (const [key, value] of Object.entries(step.env ?? {})) env[key] = expand(value);
    const cwd = resolve(workspace, expand(step["working-directory"] ?? "."));
    const r = spawnSync("bash", ["--noprofile", "--norc", "-eo", "pipefail", "-c", step.run], {
      cwd,
      env,
      encoding: "utf8",
      timeout: 120_000,
    });
    stdout += r.stdout;
    stderr += r.stderr;
    code = r.status;
    if (step.id !== undefined)
      stepOutputs[step.id] = parseOutputs(readFileSync(outputFile, "utf8"));
    if (code !== 0) break;
  }
  const outputs: Record<string, string> = {};
  for (const [name, spec] of Object.entries(ACTION.outputs)) {
    outputs[name] = expand(spec.value, stepOutputs);
  }
  return { code, stdout, stderr, outputs, summary: readFileSync(summaryFile, "utf8") };
}

/** A repository with server docs pinned from a dump (with its snapshots), in `sub` when given. */
function pinnedRepo(sub = "."): Workspace {
  const ws = new Workspace();
  const dir = join(ws.dir, sub);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "docs.json"), JSON.stringify({ tools: baseTools() }));
  const add = runCli(["add", "docs", "--file", "docs.json"], { cwd: dir });
  assert.equal(add.code, 0, add.stderr);
  return ws;
}

function drift(dir: string): void {
  const tools = baseTools();
  tools[0]!["annotations"] = { readOnlyHint: false };
  writeFileSync(join(dir, "docs.json"), JSON.stringify({ tools }));
}

describe("the Action's install: the runtime and one build tool, not every development dependency", () => {
  it("scripts/action-build pins esbuild alone, byte for byte as package-lock.json does", () => {
    type Lock = { packages: Record<string, { version?: string; integrity?: string }> };
    const read = (path: string) => JSON.parse(readFileSync(join(ROOT, path), "utf8")) as Lock;
    const project = read("package-lock.json").packages;
    const build = read("scripts/action-build/package-lock.json").packages;
    const manifest = JSON.parse(
      readFileSync(join(ROOT, "scripts/action-build/package.json"), "utf8"),
    ) as { dependencies: Record<string, string> };
    assert.deepEqual(manifest.dependencies, { esbuild: project["node_modules/esbuild"]!.version });
    const entries = Object.keys(build).filter((k) => k !== "");
    assert.ok(entries.includes("node_modules/esbuild"));
    for (const key of entries) {
      assert.match(key, /^node_modules\/(esbuild|@esbuild\/[a-z0-9-]+)$/, key);
      const { version, integrity } = build[key]!;
      assert.deepEqual(
        { version, integrity },
        {
          version: project[key]?.version,
          integrity: project[key]?.integrity,
        },
        key,
      );
    }
  });

  it("build.mjs --cli builds a CLI that runs, with esbuild alone and without TypeScript", () => {
    // A copy of the sources with the runtime's node_modules, and esbuild where
    // the Action installs it (here the project's own, the same version).
    const dir = tempDir("contractpin-action-build-");
    for (const part of ["src", "scripts", "examples", "package.json"])
      cpSync(join(ROOT, part), join(dir, part), {
        recursive: true,
        filter: (from) => !from.includes("node_modules"),
      });
    symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"), "dir");
    symlinkSync(join(ROOT, "node_modules"), join(dir, "scripts/action-build/node_modules"), "dir");
    // The CLI alone: a build that ran tsc would have written the library beside bin/.
    const build = spawnSync(process.execPath, ["scripts/build.mjs", "--cli"], {
      cwd: dir,
      encoding: "utf8",
    });
    assert.equal(build.status, 0, build.stderr);
    assert.deepEqual(readdirSync(join(dir, "dist")), ["bin"]);
    const bin = join(dir, "dist/bin/contractpin.cjs");
    const lock = join(dir, "contractpin.lock");
    const dump = join(dir, "examples/server-memory.tools.json");
    const run = (...args: string[]) =>
      spawnSync(process.execPath, [bin, ...args], { cwd: dir, encoding: "utf8" });
    assert.equal(run("add", "memory", "--file", dump, "--lock", lock).status, 0);
    const verify = run("verify", "--lock", lock);
    assert.equal(verify.status, 0, verify.stderr);
    assert.match(verify.stdout, /OK: 1 server matches the lock/);
  });
});

describe("the GitHub Action, run as the runner runs it", () => {
  it("is a composite action whose scripts take inputs only through env", () => {
    assert.equal(ACTION.runs.using, "composite");
    for (const step of ACTION.runs.steps) {
      assert.equal(step.shell, "bash");
      assert.doesNotMatch(step.run, /\$\{\{/, `a run: holds an expression: ${step.run}`);
      // No other action, no download: only this checkout's scripts.
      assert.equal((step as { uses?: string }).uses, undefined);
      assert.match(step.run, /^bash "\$GITHUB_ACTION_PATH\/scripts\/action-[a-z]+\.sh"$/);
    }
    // Dependencies exactly as a lock file pins them, nothing by a tag or a
    // range: the runtime's from package-lock.json, esbuild from its own lock.
    const install = readFileSync(join(ROOT, "scripts/action-install.sh"), "utf8");
    const commands = install.split("\n").filter((l) => /^(npm|node) /.test(l));
    assert.deepEqual(commands, [
      "npm ci --omit=dev --ignore-scripts --no-audit --no-fund",
      "npm ci --prefix scripts/action-build --ignore-scripts --no-audit --no-fund",
      "node scripts/build.mjs --cli",
    ]);
    assert.doesNotMatch(install, /npx|npm (i|install)\b|@latest|curl|wget/);
    assert.deepEqual(Object.keys(ACTION.inputs).sort(), [
      "allow-new",
      "concurrency",
      "fail-on",
      "lock",
      "sarif",
      "servers",
      "summary",
      "timeout",
      "working-directory",
    ]);
    assert.deepEqual(Object.keys(ACTION.outputs).sort(), ["drift", "exit-code", "json", "sarif"]);
  });

  it("a clean lock: exit 0, drift false, the JSON and SARIF reports, an OK summary", () => {
    const ws = pinnedRepo();
    const r = runAction(ws.dir, { sarif: "contractpin.sarif" });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.equal(r.outputs["exit-code"], "0");
    assert.equal(r.outputs["drift"], "false");
    // Absolute: upload-sarif resolves a relative path from the workspace.
    assert.equal(r.outputs["sarif"], ws.path("contractpin.sarif"));
    const sarif = JSON.parse(readFileSync(ws.path("contractpin.sarif"), "utf8"));
    assert.equal(sarif.version, "2.1.0");
    assert.deepEqual(sarif.runs[0].results, []);
    const json = JSON.parse(readFileSync(r.outputs["json"]!, "utf8"));
    assert.equal(json.format, "contractpin-verify/1");
    assert.equal(json.exit_code, 0);
    assert.match(r.summary, /^## contractpin: OK\n/);
    assert.doesNotMatch(r.stdout, /^::error/m);
  });

  it("a drifting server: the step fails with verify's exit code, annotations, drift true, a FAIL summary", () => {
    const ws = pinnedRepo();
    drift(ws.dir);
    const r = runAction(ws.dir, { sarif: "out/contractpin.sarif" });
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.equal(r.outputs["exit-code"], "1");
    assert.equal(r.outputs["drift"], "true");
    assert.match(
      r.stdout,
      /^::error file=contractpin\.lock,line=\d+,title=contractpin high%3A annotation-readonly-removed::server docs, tool search: /m,
    );
    const json = JSON.parse(readFileSync(r.outputs["json"]!, "utf8"));
    assert.equal(json.exit_code, 1);
    assert.equal(json.servers[0].status, "drift");
    const sarif = JSON.parse(readFileSync(ws.path("out/contractpin.sarif"), "utf8"));
    assert.equal(sarif.runs[0].results[0].ruleId, "annotation-readonly-removed");
    assert.match(r.summary, /^## contractpin: FAIL\n/);
    assert.match(r.summary, /annotation-readonly-removed/);
  });

  it("allow-new, servers and working-directory reach verify; summary false writes no summary", () => {
    const ws = pinnedRepo("ci");
    const dir = ws.path("ci");
    writeFileSync(
      join(dir, "other.json"),
      JSON.stringify({ tools: [{ name: "ping", inputSchema: { type: "object" } }] }),
    );
    assert.equal(runCli(["add", "other", "--file", "other.json"], { cwd: dir }).code, 0);
    drift(dir);
    // Only `other` is verified: docs's drift is not looked at.
    const other = runAction(ws.dir, {
      "working-directory": "ci",
      servers: "other",
      summary: "false",
    });
    assert.equal(other.code, 0, other.stdout + other.stderr);
    assert.equal(other.summary, "");
    const both = runAction(ws.dir, {
      "working-directory": "ci",
      servers: "other, docs",
      sarif: "out.sarif",
    });
    assert.equal(both.code, 1, both.stdout + both.stderr);
    // Annotations and SARIF name the lock from the repository's root, the
    // sarif output from anywhere.
    assert.match(both.stdout, /^::error file=ci\/contractpin\.lock,line=\d+,/m);
    assert.equal(both.outputs["sarif"], join(dir, "out.sarif"));
    const log = JSON.parse(readFileSync(join(dir, "out.sarif"), "utf8"));
    assert.equal(
      log.runs[0].results[0].locations[0].physicalLocation.artifactLocation.uri,
      "ci/contractpin.lock",
    );
    assert.deepEqual(log.runs[0].automationDetails, { id: "contractpin/ci/contractpin.lock/" });
    // A new tool fails, unless allow-new.
    const tools = [...baseTools(), { name: "extra", inputSchema: { type: "object" } }];
    writeFileSync(join(dir, "docs.json"), JSON.stringify({ tools }));
    assert.equal(runAction(ws.dir, { "working-directory": "ci", servers: "docs" }).code, 1);
    const allowed = runAction(ws.dir, {
      "working-directory": "ci",
      servers: "docs",
      "allow-new": "true",
    });
    assert.equal(allowed.code, 0, allowed.stdout + allowed.stderr);
    assert.equal(allowed.outputs["drift"], "false");
    // timeout and concurrency reach verify: a bad one is verify's usage error.
    for (const [input, flag] of [
      ["timeout", "--timeout"],
      ["concurrency", "--concurrency"],
    ] as const) {
      const bad = runAction(ws.dir, { "working-directory": "ci", [input]: "0x" });
      assert.equal(bad.code, 2, bad.stdout + bad.stderr);
      assert.equal(bad.outputs["exit-code"], "2");
      assert.match(bad.stderr, new RegExp(`contractpin: ${flag} takes .*, not '0x'`));
    }
  });

  it("fail-on reaches verify: a drift below it passes, at it fails, a bad one is exit 2", () => {
    const ws = pinnedRepo();
    drift(ws.dir); // readOnlyHint true -> false: high annotation-readonly-removed
    const below = runAction(ws.dir, { "fail-on": "critical" });
    assert.equal(below.code, 0, below.stdout + below.stderr);
    assert.equal(below.outputs["drift"], "false");
    assert.match(below.stdout, /annotation-readonly-removed/);
    assert.match(below.stderr, /PASS with --fail-on critical/);
    const at = runAction(ws.dir, { "fail-on": "high" });
    assert.equal(at.code, 1, at.stdout + at.stderr);
    assert.equal(at.outputs["drift"], "true");
    const bad = runAction(ws.dir, { "fail-on": "severe" });
    assert.equal(bad.code, 2, bad.stdout + bad.stderr);
    assert.match(bad.stderr, /--fail-on takes critical, high, medium or low, not "severe"/);
  });

  it("a missing lock is exit 2, drift false; a bad boolean input is exit 2 before verify runs", () => {
    const ws = new Workspace();
    const missing = runAction(ws.dir);
    assert.equal(missing.code, 2, missing.stdout + missing.stderr);
    assert.equal(missing.outputs["exit-code"], "2");
    assert.equal(missing.outputs["drift"], "false");
    assert.match(missing.stdout + missing.stderr, /contractpin\.lock: cannot read the lock/);
    const bad = runAction(pinnedRepo().dir, { "allow-new": "yes" });
    assert.equal(bad.code, 2);
    assert.match(
      bad.stdout,
      /^::error title=contractpin::the allow-new input takes true or false$/m,
    );
  });

  it("a newline in the sarif input cannot add an output", () => {
    const ws = pinnedRepo();
    const r = runAction(ws.dir, { sarif: "a.sarif\ndrift=true" });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.equal(r.outputs["drift"], "false");
    assert.ok(existsSync(ws.path("a.sarif\ndrift=true")));
  });

  it("the sarif path is never followed through a symbolic link a pull request committed: a folder or the file, exit 2", () => {
    const ws = pinnedRepo();
    const victim = tempDir("contractpin-victim-");
    writeFileSync(join(victim, "precious"), "kept\n");
    symlinkSync(victim, ws.path("results"));
    symlinkSync(join(victim, "precious"), ws.path("link.sarif"));
    for (const sarif of [
      "results/contractpin.sarif",
      "results/new/contractpin.sarif",
      ws.path("results/abs/contractpin.sarif"),
    ]) {
      const r = runAction(ws.dir, { sarif });
      assert.equal(r.code, 2, `${sarif}: ${r.stdout}${r.stderr}`);
      assert.match(
        r.stdout,
        /^::error title=contractpin::the sarif input's folder \S*results is a symbolic link; contractpin does not write through one$/m,
      );
      assert.deepEqual(readdirSync(victim), ["precious"], sarif);
    }
    const file = runAction(ws.dir, { sarif: "link.sarif" });
    assert.equal(file.code, 2, file.stdout + file.stderr);
    assert.equal(file.outputs["exit-code"], "2");
    assert.match(file.stderr, /link\.sarif: cannot write the report: it is a symbolic link/);
    assert.equal(readFileSync(join(victim, "precious"), "utf8"), "kept\n");
    // Real folders are created as before, each one.
    const ok = runAction(ws.dir, { sarif: "a/b/contractpin.sarif" });
    assert.equal(ok.code, 0, ok.stdout + ok.stderr);
    assert.equal(
      JSON.parse(readFileSync(ws.path("a/b/contractpin.sarif"), "utf8")).version,
      "2.1.0",
    );
  });
});
