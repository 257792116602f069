/**
 * Whole-process wall time of `contractpin verify`:
 *  1. a lock of one file-transport server with 100 tools, its contract
 *     snapshots beside it, against `node -e ""` (target: within 1.5x, for
 *     tools the size real servers serve; tools of ~4 KB are shown as a stress
 *     case; a clean verify does not read the snapshots), a check that such a
 *     run never loads the MCP client library, and, with no target, the same
 *     verify when one tool drifted (the snapshots read, the change shown);
 *  2. ten stdio servers (@modelcontextprotocol/server-memory under ten names)
 *     against the slowest one verified alone (target: within 1.5x), and what
 *     contractpin adds per server over a bare client listing the same server;
 *  3. ten stdio servers that answer after 600 ms using no CPU
 *     (bench/sleepy-server.mjs), with default settings, against one of them
 *     (target: within 1.3x: typical configs are read in one round);
 *  4. `contractpin check` (offline) on a lock of server-memory,
 *     server-everything and server-filesystem with its contract snapshots
 *     (target: a median under 200 ms).
 * Every command runs with stdout and stderr on pipes, as in a CI job.
 * Usage: node bench/verify.bench.mjs [--rounds N]   (after npm run build)
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { makeDump } from "./corpus.mjs";
import { medians } from "./timing.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const cli = join(root, "dist/bin/contractpin.cjs");
const memory = join(root, "node_modules/@modelcontextprotocol/server-memory/dist/index.js");
const everything = join(root, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const filesystem = join(root, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
const roundsArg = process.argv.indexOf("--rounds");
const rounds = roundsArg > 0 ? Number(process.argv[roundsArg + 1]) : 21;
const node = process.execPath;
const dir = mkdtempSync(join(tmpdir(), "contractpin-bench-"));
const results = [];

function contractpin(args, options = {}) {
  const r = spawnSync(node, [cli, ...args], { cwd: dir, encoding: "utf8", ...options });
  if (r.status !== 0) throw new Error(`contractpin ${args.join(" ")} failed: ${r.stderr}`);
  return r;
}

try {
  // 1. File transport, 100 tools: tools the size real servers serve (the
  //    bundled server-memory dump's tools, renamed; ~1.2 KB each), and the
  //    digest benchmark's heavier ~4 KB tools.
  const example = JSON.parse(readFileSync(join(root, "examples/server-memory.tools.json"), "utf8"))
    .result.tools;
  const realSized = Array.from({ length: 100 }, (_, i) => ({
    ...example[i % example.length],
    name: `tool_${i}`,
  }));
  writeFileSync(join(dir, "real.json"), JSON.stringify({ tools: realSized }));
  writeFileSync(join(dir, "heavy.json"), makeDump(100));
  contractpin(["add", "real", "--file", "real.json", "--lock", "real.lock"]);
  contractpin(["add", "heavy", "--file", "heavy.json", "--lock", "heavy.lock"]);
  // The same lock, its server's dump with one tool reworded: a drift to show.
  writeFileSync(
    join(dir, "drift.json"),
    JSON.stringify({
      tools: realSized.map((t, i) =>
        i === 50 ? { ...t, description: `${t.description} Now.` } : t,
      ),
    }),
  );
  writeFileSync(
    join(dir, "drift.lock"),
    readFileSync(join(dir, "real.lock"), "utf8").replace(
      '"path": "real.json"',
      '"path": "drift.json"',
    ),
  );
  writeFileSync(join(dir, "drift.contracts.json"), readFileSync(join(dir, "real.contracts.json")));
  // The snapshots are there, and a drift is shown from them.
  const shown = spawnSync(node, [cli, "verify", "--lock", "drift.lock"], {
    cwd: dir,
    encoding: "utf8",
  });
  if (shown.status !== 1 || !shown.stdout.includes("{+ Now.+}") || shown.stderr !== "")
    throw new Error(
      `verify of the drifted lock did not show the change: ${shown.stdout}${shown.stderr}`,
    );
  // Does a file-only verify load the MCP client library? A hook on CommonJS
  // loading reports each @modelcontextprotocol package required; it is
  // checked on a stdio verify first, where it must see the client.
  const hook = join(root, "tests/fixtures/mcp-load-hook.cjs");
  const loads = (lock) => {
    const r = spawnSync(node, ["--require", hook, cli, "verify", "--lock", lock], {
      cwd: dir,
      encoding: "utf8",
    });
    if (r.status !== 0) throw new Error(`verify --lock ${lock} failed: ${r.stderr}`);
    return r.stderr.includes("LOADED @modelcontextprotocol/client");
  };
  contractpin([
    "add",
    "probe",
    "--lock",
    "probe.lock",
    "--env",
    `MEMORY_FILE_PATH=${join(dir, "probe.jsonl")}`,
    "--",
    node,
    memory,
  ]);
  if (!loads("probe.lock"))
    throw new Error("the load hook did not see a stdio verify load the client");
  const loadsClient = loads("real.lock");
  const [bare, version, verifyReal, verifyHeavy, verifyDrift] = medians(
    [
      [node, "-e", ""],
      [node, cli, "--version"],
      [node, cli, "verify", "--lock", "real.lock"],
      [node, cli, "verify", "--lock", "heavy.lock"],
      [node, cli, "verify", "--lock", "drift.lock"],
    ],
    rounds,
    { cwd: dir, okCodes: [1] },
  );
  const kb = (name) => `${(statSync(join(dir, name)).size / 1024).toFixed(0)} KB`;
  results.push(
    ['node -e "" (floor)', bare],
    ["contractpin --version", version],
    [
      `verify, 1 file server, 100 tools of ~1.2 KB (${kb("real.json")}; snapshots ${kb("real.contracts.json")})`,
      verifyReal,
    ],
    [
      `verify, 1 file server, 100 tools of ~4 KB (${kb("heavy.json")}; snapshots ${kb("heavy.contracts.json")})`,
      verifyHeavy,
    ],
    ["verify, the ~1.2 KB lock with 1 tool drifted (snapshots read)", verifyDrift],
  );

  // 2. Ten stdio servers.
  for (let i = 1; i <= 10; i++) {
    contractpin([
      "add",
      `m${i}`,
      "--lock",
      "live.lock",
      "--env",
      `MEMORY_FILE_PATH=${join(dir, `m${i}.jsonl`)}`,
      "--",
      node,
      memory,
    ]);
  }
  const liveRounds = Math.max(5, Math.floor(rounds / 3));
  const alone = medians(
    Array.from({ length: 10 }, (_, i) => [
      node,
      cli,
      "verify",
      "--lock",
      "live.lock",
      "--server",
      `m${i + 1}`,
    ]),
    liveRounds,
    { cwd: dir },
  );
  const slowest = Math.max(...alone);
  // Inside the project, so that it resolves the MCP client from node_modules.
  mkdirSync(join(root, ".bench"), { recursive: true });
  const bareClient = join(root, ".bench", "bare-client.mjs");
  writeFileSync(
    bareClient,
    `
    import { Client } from "@modelcontextprotocol/client";
    import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
    const client = new Client({ name: "bare", version: "0" }, { capabilities: {} });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [${JSON.stringify(memory)}], env: { MEMORY_FILE_PATH: ${JSON.stringify(join(dir, "bare.jsonl"))} } }));
    await client.listTools();
    await client.close();`,
  );
  const [all, bareList, one] = medians(
    [
      [node, cli, "verify", "--lock", "live.lock"],
      [node, bareClient],
      [node, cli, "verify", "--lock", "live.lock", "--server", "m1"],
    ],
    liveRounds,
    { cwd: dir },
  );
  // 3. Ten stdio servers that each answer after 600 ms without using the CPU,
  //    with default settings: all of them should be read in one round.
  const sleepy = join(root, "bench", "sleepy-server.mjs");
  for (let i = 1; i <= 10; i++) {
    contractpin(["add", `s${i}`, "--lock", "sleepy.lock", "--", node, sleepy]);
  }
  const [sleepyAll, sleepyOne] = medians(
    [
      [node, cli, "verify", "--lock", "sleepy.lock"],
      [node, cli, "verify", "--lock", "sleepy.lock", "--server", "s1"],
    ],
    liveRounds,
    { cwd: dir },
  );
  // The floor under that target: the same ten servers started and asked for
  // their tools at once, with no MCP client at all. On two cores their own
  // start-up (a Node process each) takes most of the budget.
  const floorScript = join(root, ".bench", "sleepy-floor.mjs");
  mkdirSync(join(root, ".bench"), { recursive: true });
  writeFileSync(
    floorScript,
    `
    import { spawn } from "node:child_process";
    const n = Number(process.argv[2]);
    await Promise.all(Array.from({ length: n }, () => new Promise((done) => {
      const c = spawn(process.execPath, [${JSON.stringify(sleepy)}], { stdio: ["pipe", "pipe", "ignore"] });
      c.stdout.once("data", () => c.stdin.end());
      c.on("exit", done);
      c.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }) + "\\n");
    })));`,
  );
  const [floorAll, floorOne] = medians(
    [
      [node, floorScript, "10"],
      [node, floorScript, "1"],
    ],
    liveRounds,
    { cwd: dir },
  );
  // 4. check (the pre-commit hook) on a lock of the three real servers from
  //    npm, their contract snapshots included: offline, so it is judged
  //    against the same floor as a file-only verify, and against 200 ms.
  contractpin([
    "add",
    "memory",
    "--lock",
    "real-servers.lock",
    "--env",
    `MEMORY_FILE_PATH=${join(dir, "check-memory.jsonl")}`,
    "--",
    node,
    memory,
  ]);
  contractpin([
    "add",
    "everything",
    "--lock",
    "real-servers.lock",
    "--",
    node,
    everything,
    "stdio",
  ]);
  contractpin(["add", "filesystem", "--lock", "real-servers.lock", "--", node, filesystem, dir]);
  const [checkBare, checkReal] = medians(
    [
      [node, "-e", ""],
      [node, cli, "check", "--lock", "real-servers.lock"],
    ],
    rounds,
    { cwd: dir },
  );
  results.push(
    ['node -e "" (floor, again beside check)', checkBare],
    [
      `check, server-memory + server-everything + server-filesystem with snapshots (${((statSync(join(dir, "real-servers.lock")).size + statSync(join(dir, "real-servers.contracts.json")).size) / 1024).toFixed(0)} KB)`,
      checkReal,
    ],
  );

  results.push(
    ["no client: 10 such servers started and answered at once", floorAll],
    ["no client: 1 such server", floorOne],
    ["verify, 10 servers answering after 600 ms, default settings", sleepyAll],
    ["verify, 1 server answering after 600 ms", sleepyOne],
    ["verify, each of 10 stdio servers alone (slowest)", slowest],
    ["verify, 10 stdio servers at once", all],
    ["bare MCP client: connect, listTools, close (server-memory)", bareList],
    ["verify, 1 stdio server (server-memory)", one],
  );

  const width = Math.max(...results.map(([name]) => name.length));
  console.log(
    `contractpin verify benchmark -- node ${process.version}, ${rounds} rounds (live: ${liveRounds}), medians`,
  );
  for (const [name, ms] of results)
    console.log(`${name.padEnd(width)}  ${ms.toFixed(1).padStart(8)} ms`);
  // The issue's target is a 100-tool server; real servers' tools average
  // 0.6-1.2 KB (server-everything, server-filesystem, server-memory), so the
  // target is judged on those. The digest benchmark's ~4 KB tools are shown
  // beside it as a stress case.
  const targets = [
    ['verify (file, 100 tools of ~1.2 KB, snapshots) / node -e ""', verifyReal / bare, 1.5],
    ["verify 10 stdio servers / slowest alone", all / slowest, 1.5],
    ["verify 10 idle 600 ms servers / one of them", sleepyAll / sleepyOne, 1.3],
  ];
  const floorRatio = floorAll / floorOne;
  console.log("\ntargets:");
  for (const [name, ratio, limit] of targets) {
    console.log(
      `  ${name.padEnd(60)} ${ratio.toFixed(2)}x  <= ${limit.toFixed(2)}x  ${ratio <= limit ? "PASS" : "FAIL"}`,
    );
  }
  console.log(
    `  ${'stress: verify (file, 100 tools of ~4 KB) / node -e ""'.padEnd(60)} ${(verifyHeavy / bare).toFixed(2)}x  (no target: tools 3-7x real servers' size)`,
  );
  console.log(
    `  ${"floor: 10 idle 600 ms servers / one, no client".padEnd(60)} ${floorRatio.toFixed(2)}x  (the servers' own start-up; no target)`,
  );
  console.log(
    `  ${'drift: verify (1 of 100 tools drifted) / node -e ""'.padEnd(60)} ${(verifyDrift / bare).toFixed(2)}x  (no target: the snapshots are read only on a drift)`,
  );
  console.log(
    `  file-only verify loads the MCP client library: ${loadsClient ? "YES (FAIL)" : "no (PASS)"}`,
  );
  console.log(
    `  ${"check (3 real servers, snapshots) median".padEnd(60)} ${checkReal.toFixed(1)} ms  <= 200 ms  ${checkReal <= 200 ? "PASS" : "FAIL"}  (${(checkReal / checkBare).toFixed(2)}x node -e "")`,
  );
  console.log(
    `\ncontractpin's time per server over a bare client: ${(one - bareList).toFixed(1)} ms (verify of one server minus connect+listTools+close)`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
