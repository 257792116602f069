/**
 * Measures the peak memory of ONE operation on a tools/list dump, in a fresh
 * process. Run by digest.bench.mjs as:
 *
 *   node --expose-gc bench/memory-worker.mjs <json-parse|pipeline|peer> <dump file>
 *
 * and prints one line of JSON with the figures below (bytes).
 *
 * What is measured. All modules are loaded and the dump is read into a Buffer
 * first; then two full GCs, and the baseline is taken: `process.memoryUsage()`
 * (rss; heapUsed + external, where external already includes arrayBuffers and
 * so the input Buffer).
 * The operation then runs once, cold (no warm-up, as in a CLI run), and its
 * result is kept alive until every figure is taken:
 *
 * - peakRss: `process.resourceUsage().maxRSS` (the process's resident-set
 *   high-water mark, from the kernel) after the operation, minus the baseline
 *   rss. This is the memory the operation made the process hold at its worst,
 *   including V8 heap pages it grew and has not yet handed back. If the
 *   process's high-water mark before the baseline was already higher (startup,
 *   reading the file), the figure is a lower bound; for the 40 MB dump the
 *   operations exceed that by far.
 * - peakHeap: the largest JS-heap-plus-external size seen during the
 *   operation, minus the baseline's. It is read from V8 itself: a
 *   `v8.GCProfiler` records the heap statistics just before every GC that
 *   runs during the operation, and the size right after it (before any GC)
 *   is taken too; the maximum of those is the peak, since the heap only grows
 *   between GCs. It counts live objects plus garbage not yet collected.
 * - retained: heapUsed + external after a full GC, with the
 *   result still alive, minus the baseline: the size of the result itself.
 */
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import process from "node:process";
import * as v8 from "node:v8";
import { digestServer, parseJson, readDump } from "../dist/index.js";
import { peerPipeline } from "./peer.mjs";

const OPERATIONS = {
  "json-parse": (buffer) => JSON.parse(buffer.toString("utf8")),
  pipeline: (buffer) => digestServer(readDump(parseJson(buffer))),
  peer: (buffer) => peerPipeline(buffer),
};

const [mode, file] = process.argv.slice(2);
const operation = OPERATIONS[mode];
const gc = globalThis.gc;
if (operation === undefined || file === undefined || typeof gc !== "function") {
  console.error("usage: node --expose-gc memory-worker.mjs <json-parse|pipeline|peer> <dump file>");
  process.exit(2);
}

// `external` includes `arrayBuffers` (Node's docs), so it is not added again.
const heapAndExternal = (m) => m.heapUsed + m.external;

const input = readFileSync(file);
gc();
gc();
const baseline = process.memoryUsage();
const maxRssBefore = process.resourceUsage().maxRSS * 1024;

const profiler = new v8.GCProfiler();
profiler.start();
const t0 = performance.now();
const result = operation(input);
const elapsedMs = performance.now() - t0;
const after = process.memoryUsage();
const { statistics } = profiler.stop();
const maxRssAfter = process.resourceUsage().maxRSS * 1024;

let peakHeapAndExternal = heapAndExternal(after);
for (const event of statistics) {
  const s = event.beforeGC.heapStatistics;
  peakHeapAndExternal = Math.max(peakHeapAndExternal, s.usedHeapSize + s.externalMemory);
}

gc();
gc();
const retained = process.memoryUsage();

console.log(
  JSON.stringify({
    mode,
    inputBytes: input.length,
    elapsedMs,
    gcCount: statistics.length,
    baselineRss: baseline.rss,
    maxRssBefore,
    maxRssAfter,
    peakRss: maxRssAfter - baseline.rss,
    peakHeap: peakHeapAndExternal - heapAndExternal(baseline),
    retained: heapAndExternal(retained) - heapAndExternal(baseline),
    // Touch the result so it is alive until here.
    resultKind: Array.isArray(result) ? "array" : typeof result,
  }),
);
