/**
 * What a hostile Python index costs `contractpin outdated` (issue 32): a
 * loopback index (served here) answers the project page of a pinned `uvx`
 * server with one of the pages below, and for each this reports
 *  1. the wall time of `outdated --timeout 120` (the whole run: start, ask,
 *     read and parse the page, report), median of --rounds;
 *  2. the time from SIGTERM, sent as soon as the index has handed the whole
 *     page to the connection (so the run is reading or parsing it), to the
 *     process's exit (target: under 1 s; exit 2, "interrupted by SIGTERM");
 *  3. the wall time of `outdated --timeout 1` (target: under 2 s, the
 *     deadline and then the report).
 * The pages: the review's 234 KB of unclosed `<a ` tags; the same at the
 * 32 MiB bound; 32 MiB of anchors to real-looking files; a PEP 691 JSON page
 * of one file name of 32 MiB of dashes; a JSON page of 32 MiB of files.
 * Usage: node bench/hostile-index.bench.mjs [--rounds N]   (after npm run build)
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const cli = join(root, "dist/bin/contractpin.cjs");
const roundsArg = process.argv.indexOf("--rounds");
const rounds = roundsArg > 0 ? Number(process.argv[roundsArg + 1]) : 3;
const MIB = 1024 * 1024;
const fill = (unit, size) => unit.repeat(Math.ceil(size / unit.length));
const files = (size) => {
  const list = [];
  for (let length = 0; length < size; length += 60)
    list.push({ filename: `x-${list.length}.0.tar.gz` });
  return list;
};
const HTML = "text/html";
const JSON_PAGE = "application/vnd.pypi.simple.v1+json";
const pages = [
  ["234 KB of unclosed '<a '", HTML, fill("<a ", 234_000)],
  ["32 MiB of unclosed '<a '", HTML, fill("<a ", 32 * MIB - 16)],
  [
    "32 MiB of anchors",
    HTML,
    fill('<a href="../f/x-1.0.tar.gz#sha256=00">x-1.0.tar.gz</a>\n', 32 * MIB - 64),
  ],
  [
    "JSON: a 32 MiB name of dashes",
    JSON_PAGE,
    JSON.stringify({ files: [{ filename: `${fill("a-", 32 * MIB - 64)}1.tar.gz` }] }),
  ],
  ["JSON: 32 MiB of files", JSON_PAGE, JSON.stringify({ files: files(32 * MIB - 64) })],
].map(([name, type, text]) => ({ name, type, body: Buffer.from(text) }));

let page = pages[0];
let sent = () => undefined;
const server = createServer((req, res) => {
  if (!req.url.startsWith("/simple/x/")) return res.writeHead(404).end();
  res.writeHead(200, { "content-type": page.type, "content-length": page.body.length });
  res.end(page.body, () => sent());
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const index = `http://127.0.0.1:${server.address().port}/simple/`;

const dir = mkdtempSync(join(tmpdir(), "contractpin-hostile-bench-"));
try {
  // A lock of one uvx server asking the loopback index, pinned from a dump and given its command.
  const home = join(dir, "home");
  mkdirSync(home);
  writeFileSync(join(dir, "dump.json"), JSON.stringify({ tools: [] }));
  const env = {
    ...process.env,
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_CONFIG_DIRS: join(home, "none"),
  };
  const add = await run(["add", "x", "--file", "dump.json", "--no-snapshot"]);
  if (add.code !== 0) throw new Error(`contractpin add: ${add.stderr}`);
  const lock = JSON.parse(readFileSync(join(dir, "contractpin.lock"), "utf8"));
  const { path: _p, ...pinned } = lock.servers.x;
  lock.servers.x = {
    ...pinned,
    transport: "stdio",
    command: ["uvx", "--index-url", index, "x@1.0.0"],
  };
  writeFileSync(join(dir, "contractpin.lock"), JSON.stringify(lock, null, 2));

  for (const p of pages) {
    page = p;
    const whole = [];
    const term = [];
    const deadline = [];
    for (let r = 0; r < rounds; r++) {
      whole.push((await run(["outdated", "--timeout", "120"])).ms);
      const stopped = await run(["outdated", "--timeout", "120"], { term: true });
      if (stopped.code !== 2 || !/interrupted by SIGTERM/.test(stopped.stderr))
        throw new Error(`SIGTERM: exit ${stopped.code}: ${stopped.stderr}`);
      term.push(stopped.afterTerm);
      deadline.push((await run(["outdated", "--timeout", "1"])).ms);
    }
    console.log(
      `${p.name.padEnd(32)} outdated ${median(whole).toFixed(0).padStart(6)} ms; ` +
        `SIGTERM to exit ${median(term).toFixed(0).padStart(4)} ms; ` +
        `--timeout 1: ${median(deadline).toFixed(0).padStart(5)} ms (medians of ${rounds})`,
    );
  }

  /** Runs the CLI in `dir`; with `term`, sends SIGTERM once the index has sent the whole page. */
  function run(args, { term = false } = {}) {
    return new Promise((resolve, reject) => {
      const start = process.hrtime.bigint();
      let termAt;
      const child = spawn(process.execPath, [cli, ...args], {
        cwd: dir,
        env,
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stderr = "";
      child.stdout.resume();
      child.stderr.on("data", (d) => (stderr += d));
      sent = term
        ? () => {
            termAt = process.hrtime.bigint();
            child.kill("SIGTERM");
          }
        : () => undefined;
      child.on("error", reject);
      child.on("exit", (code) => {
        const end = process.hrtime.bigint();
        resolve({
          code,
          stderr,
          ms: Number(end - start) / 1e6,
          afterTerm: termAt === undefined ? NaN : Number(end - termAt) / 1e6,
        });
      });
    });
  }
} finally {
  server.close();
  rmSync(dir, { recursive: true, force: true });
}

function median(values) {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
}
