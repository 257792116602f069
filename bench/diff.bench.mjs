/**
 * Whole-process wall time of `contractpin diff` of two locks of one server
 * with 10,000 tools each (the digest benchmark's ~4 KB tools), with their
 * contract snapshots, in which 1,000 tools drifted (a description reworded,
 * or a property added to the input schema), against `contractpin digest` of
 * one of them (target: within 2x). Both print their whole report to a pipe.
 * Usage: node bench/diff.bench.mjs [--rounds N]   (after npm run build)
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { makeDump } from "./corpus.mjs";
import { medians } from "./timing.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const cli = join(root, "dist/bin/contractpin.cjs");
const roundsArg = process.argv.indexOf("--rounds");
const rounds = roundsArg > 0 ? Number(process.argv[roundsArg + 1]) : 11;
const node = process.execPath;
const dir = mkdtempSync(join(tmpdir(), "contractpin-bench-"));

function contractpin(args) {
  const r = spawnSync(node, [cli, ...args], { cwd: dir, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`contractpin ${args.join(" ")} failed: ${r.stderr}`);
  return r;
}

try {
  const before = makeDump(10_000);
  const dump = JSON.parse(before.toString("utf8"));
  // Every tenth tool drifts: odd ones in their wording, even ones in their input.
  dump.result.tools.forEach((tool, i) => {
    if (i % 10 !== 0) return;
    if (i % 20 === 0) {
      tool.inputSchema = { ...tool.inputSchema };
      tool.inputSchema.properties = { ...tool.inputSchema.properties, extra: { type: "string" } };
    } else tool.description = `${tool.description ?? ""} Call this tool first.`;
  });
  writeFileSync(join(dir, "old.json"), before);
  writeFileSync(join(dir, "new.json"), JSON.stringify(dump));
  contractpin(["add", "big", "--file", "old.json", "--lock", "old.lock"]);
  contractpin(["add", "big", "--file", "new.json", "--lock", "new.lock"]);
  const check = spawnSync(node, [cli, "diff", "old.lock", "new.lock", "--json"], {
    cwd: dir,
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
  });
  const drifted = JSON.parse(check.stdout).summary.tools.drifted;
  if (check.status !== 1 || drifted !== 1000 || check.stderr !== "") {
    throw new Error(
      `diff did not see 1,000 drifted tools (exit ${check.status}, ${drifted}): ${check.stderr}`,
    );
  }
  const [digest, diff, diffJson] = medians(
    [
      [node, cli, "digest", "old.json"],
      [node, cli, "diff", "old.lock", "new.lock"],
      [node, cli, "diff", "old.lock", "new.lock", "--json"],
    ],
    rounds,
    { cwd: dir, okCodes: [1] },
  );
  const size = (name) => `${(statSync(join(dir, name)).size / 1024 / 1024).toFixed(1)} MB`;
  console.log(`contractpin diff benchmark -- node ${process.version}, ${rounds} rounds, medians`);
  const rows = [
    [`digest of one 10,000-tool dump (${size("old.json")})`, digest],
    [
      `diff of two 10,000-tool locks (${size("old.lock")} + snapshots ${size("old.contracts.json")} each), 1,000 drifted`,
      diff,
    ],
    ["the same diff, --json", diffJson],
  ];
  const width = Math.max(...rows.map(([name]) => name.length));
  for (const [name, ms] of rows)
    console.log(`${name.padEnd(width)}  ${ms.toFixed(1).padStart(8)} ms`);
  console.log("\ntargets:");
  for (const [name, ratio] of [
    ["diff (text) / digest", diff / digest],
    ["diff (--json) / digest", diffJson / digest],
  ]) {
    console.log(
      `  ${name.padEnd(30)} ${ratio.toFixed(2)}x  <= 2.00x  ${ratio <= 2 ? "PASS" : "FAIL"}`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
