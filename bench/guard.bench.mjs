/**
 * The runtime guard's overhead (issue 13), on loopback stdio against a
 * minimal server (bench/guard-server.mjs):
 *  1. the latency `contractpin guard` adds to a tools/call round trip, over
 *     --calls sequential calls (default 1,000, after 100 to warm up), median
 *     and p99, direct vs through the guard (target: under 0.5 ms median and
 *     under 2 ms p99 added);
 *  2. the time from the client's first message (initialize) to the first
 *     tools/list answer, direct vs through the guard (the process start of
 *     each is included: it is what a client waits for);
 *  3. the guard's resident memory (VmRSS and peak VmHWM from /proc) with a
 *     1,000-tool lock, after listing and calling (target: under 80 MB);
 *  4. the time from a start to the initialize answer of a 10-tool server,
 *     direct vs through the guard in the exact form `contractpin wrap` writes
 *     into a project's .mcp.json when contractpin is installed there as a
 *     development dependency (node_modules/contractpin, as npm links it),
 *     started as Claude Code starts it, in the project (target: at most
 *     100 ms added, median), interleaved over --starts runs (default 15),
 *     beside a bare Node.js start (node -e 0); where NODE_EXTRA_CA_CERTS is
 *     set, again without it (Node.js 20 loads those certificates at every
 *     start, before any code runs: the guard's own start pays it once more).
 * Usage: node bench/guard.bench.mjs [--calls N]   (after npm run build)
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const cli = join(root, "dist/bin/contractpin.cjs");
const server = join(root, "bench/guard-server.mjs");
const callsArg = process.argv.indexOf("--calls");
const calls = callsArg > 0 ? Number(process.argv[callsArg + 1]) : 1000;
const startsArg = process.argv.indexOf("--starts");
const starts = startsArg > 0 ? Number(process.argv[startsArg + 1]) : 15;
const node = process.execPath;
const dir = mkdtempSync(join(tmpdir(), "contractpin-guard-bench-"));
const lock = join(dir, "contractpin.lock");

function pin(name, tools) {
  const r = spawnSync(
    node,
    [cli, "add", name, "--lock", lock, "--no-snapshot", "--", node, server, String(tools)],
    {
      encoding: "utf8",
    },
  );
  if (r.status !== 0) throw new Error(`contractpin add failed: ${r.stderr}`);
}

/** A line-level JSON-RPC client of one process (node ARGV, or COMMAND ARGV...). */
function start(argv, { command = node, cwd, env } = {}) {
  const child = spawn(command, argv, { stdio: ["pipe", "pipe", "inherit"], cwd, env });
  const waiting = new Map();
  createInterface({ input: child.stdout }).on("line", (line) => {
    const message = JSON.parse(line);
    const done = waiting.get(message.id);
    if (done !== undefined) {
      waiting.delete(message.id);
      done(message);
    }
  });
  let id = 0;
  const request = (method, params = {}) =>
    new Promise((resolve) => {
      const key = ++id;
      waiting.set(key, resolve);
      child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: key, method, params }) + "\n");
    });
  const notify = (method) => child.stdin.write(JSON.stringify({ jsonrpc: "2.0", method }) + "\n");
  const close = () =>
    new Promise((resolve) => {
      child.once("close", resolve);
      child.stdin.end();
    });
  return { child, request, notify, close };
}

const INIT = {
  protocolVersion: "2025-06-18",
  capabilities: {},
  clientInfo: { name: "bench", version: "1" },
};

async function session(argv) {
  const t0 = process.hrtime.bigint();
  const c = start(argv);
  await c.request("initialize", INIT);
  c.notify("notifications/initialized");
  const list = await c.request("tools/list");
  const firstList = Number(process.hrtime.bigint() - t0) / 1e6;
  if (list.result.tools.length === 0) throw new Error("no tools admitted");
  return { c, firstList };
}

async function roundTrips(c, n) {
  const times = [];
  for (let i = 0; i < n; i++) {
    const t = process.hrtime.bigint();
    const r = await c.request("tools/call", { name: "tool_1", arguments: { text: "x" } });
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
    if (r.error !== undefined) throw new Error(JSON.stringify(r.error));
  }
  return times;
}

/**
 * A project with contractpin installed as a development dependency and a
 * .mcp.json naming the 10-tool server, pinned and wrapped: the entry as
 * `wrap` wrote it.
 */
function wrappedProject() {
  const project = join(dir, "project");
  mkdirSync(join(project, "node_modules", ".bin"), { recursive: true });
  symlinkSync(root, join(project, "node_modules", "contractpin"));
  symlinkSync(
    "../contractpin/dist/bin/contractpin.cjs",
    join(project, "node_modules", ".bin", "contractpin"),
  );
  const config = { mcpServers: { small: { command: node, args: [server, "10"] } } };
  writeFileSync(join(project, ".mcp.json"), JSON.stringify(config, null, 2));
  for (const command of ["init", "wrap"]) {
    const r = spawnSync(node, [cli, command], { cwd: project, encoding: "utf8" });
    if (r.status !== 0) throw new Error(`contractpin ${command} failed: ${r.stdout}${r.stderr}`);
  }
  const entry = JSON.parse(readFileSync(join(project, ".mcp.json"), "utf8")).mcpServers.small;
  return { project, entry };
}

/** Milliseconds from the start of a process to its answer to initialize. */
async function initializeTime(argv, options) {
  const t0 = process.hrtime.bigint();
  const c = start(argv, options);
  const answer = await c.request("initialize", INIT);
  const elapsed = Number(process.hrtime.bigint() - t0) / 1e6;
  if (answer.result === undefined) throw new Error(JSON.stringify(answer));
  await c.close();
  return elapsed;
}

const pct = (sorted, p) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const stats = (times) => {
  const s = [...times].sort((a, b) => a - b);
  return { median: pct(s, 50), p99: pct(s, 99) };
};
const ms = (x) => `${x.toFixed(3)} ms`;
const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

try {
  pin("small", 10);
  pin("big", 1000);
  const direct = await session([server, "10"]);
  const guarded = await session([cli, "guard", "small", "--lock", lock]);
  await roundTrips(direct.c, 100);
  await roundTrips(guarded.c, 100);
  // Interleaved in blocks, so that load on the machine falls on both alike.
  const d = [];
  const g = [];
  for (let block = 0; block < 10; block++) {
    d.push(...(await roundTrips(direct.c, calls / 10)));
    g.push(...(await roundTrips(guarded.c, calls / 10)));
  }
  const sd = stats(d);
  const sg = stats(g);
  console.log(`tools/call round trip over ${d.length} calls (10 tools):`);
  console.log(`  direct        median ${ms(sd.median)}  p99 ${ms(sd.p99)}`);
  console.log(`  guard         median ${ms(sg.median)}  p99 ${ms(sg.p99)}`);
  console.log(
    `  added         median ${ms(sg.median - sd.median)}  p99 ${ms(sg.p99 - sd.p99)}  (targets 0.5 ms, 2 ms)`,
  );
  await direct.c.close();
  await guarded.c.close();

  const firsts = { direct: [], guard: [] };
  for (let i = 0; i < 5; i++) {
    const a = await session([server, "1000"]);
    firsts.direct.push(a.firstList);
    await a.c.close();
    const b = await session([cli, "guard", "big", "--lock", lock]);
    firsts.guard.push(b.firstList);
    if (i === 4) {
      // Memory after listing and calling with the 1,000-tool lock.
      await roundTrips(b.c, 200);
      await b.c.request("tools/list");
      const status = readFileSync(`/proc/${b.c.child.pid}/status`, "utf8");
      const kb = (key) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)[1]);
      console.log(
        `guard memory with a 1,000-tool lock: VmRSS ${(kb("VmRSS") / 1024).toFixed(1)} MB, peak VmHWM ${(kb("VmHWM") / 1024).toFixed(1)} MB (target 80 MB)`,
      );
    }
    await b.c.close();
  }
  console.log(
    `first message to first tools/list answer, 1,000 tools (median of 5, process start included): direct ${ms(med(firsts.direct))}, guard ${ms(med(firsts.guard))}, ${(med(firsts.guard) / med(firsts.direct)).toFixed(2)}x (target 2x)`,
  );

  const { project, entry } = wrappedProject();
  const form = [entry.command, ...entry.args.slice(0, entry.args.indexOf("guard"))]
    .map((a) => (a.length > 60 ? "SHIM" : a))
    .join(" ");
  // The guard's own Node.js start is most of what it adds: measured beside
  // it, and, where NODE_EXTRA_CA_CERTS is set (Node.js 20 loads those
  // certificates before it runs any code, at every start), without it too.
  const envs = [["", process.env]];
  if (process.env.NODE_EXTRA_CA_CERTS !== undefined) {
    const { NODE_EXTRA_CA_CERTS: _, ...without } = process.env;
    envs.push([" (NODE_EXTRA_CA_CERTS unset)", without]);
  }
  for (const [label, env] of envs) {
    const inits = { direct: [], wrapped: [], bare: [] };
    for (let i = 0; i < starts; i++) {
      inits.direct.push(await initializeTime([server, "10"], { env }));
      inits.wrapped.push(
        await initializeTime(entry.args, { command: entry.command, cwd: project, env }),
      );
      const t0 = process.hrtime.bigint();
      spawnSync(node, ["-e", "0"], { env });
      inits.bare.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    const id = med(inits.direct);
    const iw = med(inits.wrapped);
    console.log(
      `start to initialize answer, 10 tools${label} (median of ${starts}, process start included): direct ${ms(id)}, ` +
        `guard as wrap writes it (${form} guard ...) ${ms(iw)}, added ${ms(iw - id)} (target 100 ms); ` +
        `a bare Node.js start (node -e 0) ${ms(med(inits.bare))}`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
