/**
 * contractpin digest benchmark. Run with `npm run bench` (builds first), or
 * `node --expose-gc bench/digest.bench.mjs [--json] [--strict]` after a build.
 *
 *   --json    print the figures as JSON instead of the table
 *   --strict  exit 3 when a target fails (the digest sanity check always
 *             exits 1 on a mismatch)
 *
 * Corpus (bench/corpus.mjs, seeded, identical on every run): a tools/list
 * JSON-RPC response of 100 tools (~0.4 MB) and of 10,000 tools (~42 MB),
 * about 4 KB per tool, compact UTF-8 JSON.
 *
 * Timings, per corpus, all from the same input Buffer:
 *   JSON.parse        JSON.parse(buffer.toString("utf8")) -- the floor; the
 *                     UTF-8 decode is included, as parseJson decodes too
 *   parseJson         contractpin's strict parser, parseJson(buffer)
 *   canonicalize      contractpin's canonicalize() of the already-parsed dump
 *                     (MB/s against the input size)
 *   canonicalize npm  the npm package on the same value (for reference)
 *   pipeline          digestServer(readDump(parseJson(buffer))): strict
 *                     parse, contracts, field, tool and server digests
 *   peer              the same digests from JSON.parse + npm canonicalize +
 *                     node:crypto (bench/peer.mjs)
 *
 * How time is measured: each op is warmed up first (which also compiles the
 * code), then the ops are sampled round-robin -- one sample of each per
 * round -- so that background load during the run weighs on all of them alike
 * rather than skewing their ratios. Samples are timed with performance.now().
 * On the small corpus an op takes a few milliseconds, so a sample is a batch
 * of ops (~25 ms) and its time is divided by the batch size; the garbage
 * collection the ops cause is thereby paid by the samples, as in real use;
 * rounds go on until each op has ~1.5 s of samples (20 rounds at least). On
 * the large corpus there are 5 rounds and a sample is one op; outside the
 * timing, its input is made afresh (canonicalize's parsed dump) and a full
 * gc() runs, and no other op's result or input is alive, so that each op
 * starts from a clean heap and pays for no other op's garbage or live data.
 * The figure reported is the median time per op (--json also gives min and
 * max); MB/s = input bytes / 1e6 / seconds.
 *
 * Peak memory (large corpus): each operation runs once in its own fresh
 * process, bench/memory-worker.mjs, which explains exactly what it measures.
 *
 * Targets (from the issue): pipeline <= 3x the time of JSON.parse and faster
 * than the peer, on each corpus; peak memory of the pipeline on the large dump
 * <= 2.5x that of JSON.parse (judged on the peak RSS; the peak JS heap ratio is
 * shown beside it).
 */
import canonicalizeNpm from "canonicalize";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { canonicalize, digestServer, parseJson, readDump } from "../dist/index.js";
import { makeDump } from "./corpus.mjs";
import { peerPipeline } from "./peer.mjs";

const TIME_RATIO_LIMIT = 3;
const PEER_RATIO_LIMIT = 1;
const MEMORY_RATIO_LIMIT = 2.5;

const args = process.argv.slice(2);
for (const arg of args) {
  if (arg !== "--json" && arg !== "--strict") {
    console.error(`unknown argument ${arg}; usage: digest.bench.mjs [--json] [--strict]`);
    process.exit(2);
  }
}
const asJson = args.includes("--json");
const strict = args.includes("--strict");
const gc = globalThis.gc;
if (typeof gc !== "function") {
  console.error("run with node --expose-gc (npm run bench does)");
  process.exit(2);
}
const progress = (message) => {
  if (process.stderr.isTTY) process.stderr.write(`\r\x1b[K${message}`);
};

const median = (sorted) => {
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/**
 * Times every op of `ops` (name -> { run(input), setup?(), keep? }). After a
 * warm-up of each, the ops are sampled round-robin, one sample of each per
 * round, so that a change in background load while the benchmark runs weighs
 * on all of them alike instead of skewing their ratios. `setup` makes the
 * op's input outside the timing (canonicalize gets a parsed dump).
 *
 * Small corpus: a sample is a batch of ops; the input is made once. Large
 * corpus: a sample is one op; its input is made afresh and a gc() runs just
 * before it, and nothing but that input is left alive from other samples, so
 * each op starts from a clean heap and pays for no one else's garbage or
 * live data. Results are dropped except, for ops marked `keep`, the latest
 * (on the large corpus: those of the last round), for the sanity checks.
 *
 * Returns, per name: median, min and max time per op, sample count, batch
 * size, and the kept result.
 */
function measureAll(ops, { large, onProgress }) {
  const names = Object.keys(ops);
  const state = {};
  for (const name of names) {
    onProgress(`warm-up ${name}`);
    const { run, setup } = ops[name];
    const input = setup?.();
    const warmupStart = performance.now();
    let warmups = 0;
    do {
      run(input);
      warmups++;
    } while (large ? warmups < 1 : performance.now() - warmupStart < 300 || warmups < 5);
    const opMs = (performance.now() - warmupStart) / warmups;
    // ~25 ms per sample on the small corpus: enough ops to amortize their GC.
    const batch = large ? 1 : Math.max(1, Math.round(25 / opMs));
    state[name] = { batch, samples: [], input: large ? undefined : input, result: undefined };
  }
  // Small corpus: ~1.5 s of timed samples per op (20 rounds at least). Large: 5 rounds.
  const minRounds = large ? 5 : 20;
  const maxRounds = large ? 5 : 400;
  const budgetMs = large ? 0 : 1500 * names.length;
  let spent = 0;
  gc();
  for (let round = 0; round < minRounds || (spent < budgetMs && round < maxRounds); round++) {
    onProgress(`round ${round + 1}`);
    // Large: the round count is fixed, so the last round is known in advance.
    const keepRound = !large || round === maxRounds - 1;
    for (const name of names) {
      const { run, setup, keep } = ops[name];
      const s = state[name];
      let input = s.input;
      if (large) {
        input = setup?.();
        gc();
      }
      let result;
      const start = performance.now();
      for (let i = 0; i < s.batch; i++) result = run(input);
      const elapsed = performance.now() - start;
      spent += elapsed;
      s.samples.push(elapsed / s.batch);
      if (keep && keepRound) s.result = result;
    }
  }
  const out = {};
  for (const name of names) {
    const { batch, samples, result } = state[name];
    samples.sort((a, b) => a - b);
    out[name] = {
      medianMs: median(samples),
      minMs: samples[0],
      maxMs: samples[samples.length - 1],
      samples: samples.length,
      batch,
      result,
    };
  }
  return out;
}

const OPERATIONS = [
  { key: "jsonParse", label: "JSON.parse (floor)" },
  { key: "parseJson", label: "parseJson (strict)" },
  { key: "canonicalize", label: "canonicalize" },
  { key: "canonicalizeNpm", label: "canonicalize, npm (ref)" },
  { key: "pipeline", label: "digest pipeline" },
  { key: "peer", label: "peer pipeline" },
];

function benchCorpus(toolCount) {
  progress(`generating ${toolCount} tools`);
  const buffer = makeDump(toolCount);
  const large = buffer.length > 10e6;
  const parsed = () => parseJson(buffer);
  const ops = {
    jsonParse: { run: () => JSON.parse(buffer.toString("utf8")) },
    parseJson: { run: () => parseJson(buffer) },
    canonicalize: { setup: parsed, run: (value) => canonicalize(value), keep: true },
    canonicalizeNpm: { setup: parsed, run: (value) => canonicalizeNpm(value), keep: true },
    pipeline: { run: () => digestServer(readDump(parseJson(buffer))), keep: true },
    peer: { run: () => peerPipeline(buffer), keep: true },
  };
  const results = measureAll(ops, {
    large,
    onProgress: (what) => progress(`${toolCount} tools: ${what}`),
  });
  for (const r of Object.values(results)) r.mbPerS = buffer.length / 1e6 / (r.medianMs / 1000);
  const ours = results.pipeline.result;
  const peer = results.peer.result;
  const canonicalMatches = results.canonicalize.result === results.canonicalizeNpm.result;
  for (const r of Object.values(results)) delete r.result;
  return {
    toolCount,
    bytes: buffer.length,
    buffer,
    results,
    ratios: {
      pipelineToJsonParse: results.pipeline.medianMs / results.jsonParse.medianMs,
      pipelineToPeer: results.pipeline.medianMs / results.peer.medianMs,
    },
    sanity: {
      serverDigest: ours.digest,
      peerServerDigest: peer.digest,
      // Every tool and field digest, not only the server digest.
      allDigestsMatch: JSON.stringify(ours) === JSON.stringify(peer),
      canonicalMatchesNpm: canonicalMatches,
    },
  };
}

function runWorker(mode, file) {
  progress(`peak memory: ${mode}`);
  const worker = join(dirname(fileURLToPath(import.meta.url)), "memory-worker.mjs");
  const child = spawnSync(process.execPath, ["--expose-gc", worker, mode, file], {
    encoding: "utf8",
    maxBuffer: 1 << 20,
  });
  if (child.status !== 0) {
    throw new Error(`memory worker ${mode} failed (${child.status}): ${child.stderr}`);
  }
  return JSON.parse(child.stdout.trim().split("\n").pop());
}

function benchMemory(buffer) {
  const dir = mkdtempSync(join(os.tmpdir(), "contractpin-bench-"));
  try {
    const file = join(dir, "tools-list.json");
    writeFileSync(file, buffer);
    const out = {};
    for (const mode of ["json-parse", "pipeline", "peer"]) out[mode] = runWorker(mode, file);
    return {
      jsonParse: out["json-parse"],
      pipeline: out.pipeline,
      peer: out.peer,
      ratios: {
        peakRss: out.pipeline.peakRss / out["json-parse"].peakRss,
        peakHeap: out.pipeline.peakHeap / out["json-parse"].peakHeap,
      },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const started = performance.now();
const corpora = [benchCorpus(100), benchCorpus(10_000)];
const memory = benchMemory(corpora[1].buffer);
progress("");
for (const c of corpora) delete c.buffer;

const targets = [];
for (const c of corpora) {
  const n = c.toolCount.toLocaleString("en-US");
  targets.push({
    name: `pipeline / JSON.parse, ${n} tools`,
    value: c.ratios.pipelineToJsonParse,
    limit: `<= ${TIME_RATIO_LIMIT.toFixed(2)}x`,
    pass: c.ratios.pipelineToJsonParse <= TIME_RATIO_LIMIT,
  });
  targets.push({
    name: `pipeline / peer, ${n} tools`,
    value: c.ratios.pipelineToPeer,
    limit: `< ${PEER_RATIO_LIMIT.toFixed(2)}x`,
    pass: c.ratios.pipelineToPeer < PEER_RATIO_LIMIT,
  });
}
targets.push({
  name: "peak RSS pipeline / JSON.parse, 10,000 tools",
  value: memory.ratios.peakRss,
  limit: `<= ${MEMORY_RATIO_LIMIT.toFixed(2)}x`,
  pass: memory.ratios.peakRss <= MEMORY_RATIO_LIMIT,
});
const sanityOk = corpora.every(
  (c) => c.sanity.serverDigest === c.sanity.peerServerDigest && c.sanity.allDigestsMatch,
);
const elapsedS = (performance.now() - started) / 1000;

if (asJson) {
  console.log(
    JSON.stringify(
      {
        node: process.version,
        platform: `${process.platform} ${process.arch}`,
        cpus: os.availableParallelism(),
        corpora,
        memory,
        targets,
        sanityOk,
        allTargetsPass: targets.every((t) => t.pass),
        elapsedS,
      },
      null,
      2,
    ),
  );
} else {
  printTable();
}

if (!sanityOk) process.exit(1);
if (strict && !targets.every((t) => t.pass)) process.exit(3);

function printTable() {
  const num = (x, digits) =>
    x.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
  const mb = (bytes) => num(bytes / 1e6, 1);
  const pad = (s, w) => String(s).padStart(w);
  const lines = [];
  lines.push(
    `contractpin digest benchmark -- node ${process.version}, ${process.platform} ${process.arch}, ` +
      `${os.availableParallelism()} CPUs, ${os.cpus()[0]?.model ?? "unknown CPU"}`,
  );
  for (const c of corpora) {
    lines.push(
      `corpus: ${num(c.toolCount, 0)} tools = ${num(c.bytes, 0)} bytes ` +
        `(${mb(c.bytes)} MB, ${num(c.bytes / c.toolCount, 0)} B/tool)`,
    );
  }
  lines.push("");
  // One column group per corpus: median ms, MB/s, samples.
  const group = (a, b, c) => `${pad(a, 11)}${pad(b, 9)}${pad(c, 10)}`;
  const groupWidth = 30;
  lines.push(
    "".padEnd(25) +
      corpora
        .map((c) => `  ${`${num(c.toolCount, 0)} tools, ${mb(c.bytes)} MB`.padStart(groupWidth)}`)
        .join(""),
  );
  lines.push(
    "operation".padEnd(25) +
      corpora.map(() => `  ${group("median ms", "MB/s", "samples")}`).join(""),
  );
  for (const { key, label } of OPERATIONS) {
    let line = label.padEnd(25);
    for (const c of corpora) {
      const r = c.results[key];
      line += `  ${group(num(r.medianMs, r.medianMs < 100 ? 2 : 1), num(r.mbPerS, 1), `${r.samples}x${r.batch}`)}`;
    }
    lines.push(line);
  }
  lines.push("(samples: timed samples x ops per sample)");
  lines.push("");
  lines.push(
    `peak memory, ${num(corpora[1].toolCount, 0)}-tool dump (each op once, fresh process):`,
  );
  lines.push(
    `${"operation".padEnd(25)}${pad("peak RSS MB", 12)}${pad("peak heap MB", 14)}` +
      `${pad("retained MB", 13)}${pad("GCs", 6)}${pad("time ms", 9)}`,
  );
  for (const [key, label] of [
    ["jsonParse", "JSON.parse (floor)"],
    ["pipeline", "digest pipeline"],
    ["peer", "peer pipeline"],
  ]) {
    const m = memory[key];
    lines.push(
      `${label.padEnd(25)}${pad(mb(m.peakRss), 12)}${pad(mb(m.peakHeap), 14)}` +
        `${pad(mb(m.retained), 13)}${pad(m.gcCount, 6)}${pad(num(m.elapsedMs, 0), 9)}`,
    );
  }
  lines.push(
    `(above the baseline taken after loading the input; peak heap ratio pipeline / JSON.parse: ` +
      `${num(memory.ratios.peakHeap, 2)}x)`,
  );
  lines.push("");
  lines.push("targets:");
  for (const t of targets) {
    lines.push(
      `  ${t.name.padEnd(46)}${pad(`${num(t.value, 2)}x`, 8)}  ${t.limit.padEnd(9)} ${t.pass ? "PASS" : "FAIL"}`,
    );
  }
  lines.push("");
  for (const c of corpora) {
    const ok = c.sanity.serverDigest === c.sanity.peerServerDigest && c.sanity.allDigestsMatch;
    lines.push(
      `sanity ${num(c.toolCount, 0)} tools: ${ok ? "pipeline and peer agree" : "MISMATCH"} ` +
        `(server digest ${c.sanity.serverDigest}` +
        `${ok ? "" : ` vs peer ${c.sanity.peerServerDigest}`})` +
        `${c.sanity.canonicalMatchesNpm ? "" : "; canonicalize differs from npm canonicalize"}`,
    );
  }
  lines.push(`total ${num(elapsedS, 1)} s`);
  console.log(lines.join("\n"));
}
