/**
 * Wall time of the config set (SPEC.md 11):
 *  1. a clean `contractpin verify` of a lock of one file-transport server with
 *     100 tools (the verify bench's ~1.2 KB tools) whose project holds a
 *     `.mcp.json` the lock covers, against `node -e ""` (target: within 1.5x:
 *     the config check must not cost a clean run its budget);
 *  2. `contractpin check` of a lock that covers 20 client configs (JSON, each
 *     with 5 servers the lock leaves unpinned), reported beside the same check
 *     with no config (no target).
 * Usage: node bench/configs.bench.mjs [--rounds N]   (after npm run build)
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { medians } from "./timing.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const cli = join(root, "dist/bin/contractpin.cjs");
const roundsArg = process.argv.indexOf("--rounds");
const rounds = roundsArg > 0 ? Number(process.argv[roundsArg + 1]) : 21;
const node = process.execPath;
const dir = mkdtempSync(join(tmpdir(), "contractpin-bench-configs-"));
// A home of its own: the bench never reads the user's configs.
const env = { ...process.env, HOME: join(dir, "home") };

function contractpin(args, cwd) {
  const r = spawnSync(node, [cli, ...args], { cwd, env, encoding: "utf8" });
  if (r.status !== 0)
    throw new Error(`contractpin ${args.join(" ")} failed: ${r.stdout}${r.stderr}`);
  return r;
}

/** Five servers of a config, named `${prefix}-0` ... `${prefix}-4`. */
function servers(prefix) {
  const out = {};
  for (let i = 0; i < 5; i++)
    out[`${prefix}-${i}`] = { command: "npx", args: ["-y", `@acme/${prefix}-${i}@1.0.0`] };
  return out;
}

/** Records `files` and `unpinned` in the lock (format 3): configs enter no digest. */
function cover(lockFile, files, unpinned) {
  const lock = JSON.parse(readFileSync(lockFile, "utf8"));
  lock.contractpin = "3";
  lock.configs = { files: [...files].sort(), unpinned: [...unpinned].sort() };
  writeFileSync(lockFile, JSON.stringify(lock, null, 2));
}

try {
  mkdirSync(env.HOME);
  const example = JSON.parse(readFileSync(join(root, "examples/server-memory.tools.json"), "utf8"))
    .result.tools;
  const tools = Array.from({ length: 100 }, (_, i) => ({
    ...example[i % example.length],
    name: `tool_${i}`,
  }));

  // 1. The 100-tool file lock, its project holding a covered .mcp.json.
  const one = join(dir, "one");
  const bare = join(dir, "bare");
  for (const d of [one, bare]) {
    mkdirSync(d);
    writeFileSync(join(d, "real.json"), JSON.stringify({ tools }));
    contractpin(["add", "real", "--file", "real.json"], d);
  }
  writeFileSync(join(one, ".mcp.json"), JSON.stringify({ mcpServers: servers("team") }, null, 2));
  cover(join(one, "contractpin.lock"), [".mcp.json"], Object.keys(servers("team")));
  const ok = contractpin(["verify"], one);
  if (!/^configs {2}ok {2}\(1 config file\)$/m.test(ok.stdout))
    throw new Error(`verify did not check the config: ${ok.stdout}`);

  // 2. A lock covering 20 configs.
  const many = join(dir, "many");
  mkdirSync(many);
  writeFileSync(join(many, "real.json"), JSON.stringify({ tools }));
  contractpin(["add", "real", "--file", "real.json"], many);
  const files = [];
  const names = [];
  for (let i = 0; i < 20; i++) {
    const file = `clients/c${String(i).padStart(2, "0")}/mcp.json`;
    mkdirSync(join(many, "clients", `c${String(i).padStart(2, "0")}`), { recursive: true });
    const list = servers(`s${i}`);
    writeFileSync(join(many, file), JSON.stringify({ mcpServers: list }, null, 2));
    files.push(file);
    names.push(...Object.keys(list));
  }
  cover(join(many, "contractpin.lock"), files, names);
  const checked = contractpin(["check"], many);
  if (!checked.stdout.includes("20 client configs launch only what it pins"))
    throw new Error(`check did not read the 20 configs: ${checked.stdout}`);

  const [floor, verifyConfig] = medians(
    [
      [node, "-e", ""],
      [node, cli, "verify"],
    ],
    rounds,
    { cwd: one, env },
  );
  // The same verify without any config, run in its own folder.
  const [verifyNoConfig] = medians([[node, cli, "verify"]], rounds, { cwd: bare, env });
  const [checkNone, checkMany] = [
    medians([[node, cli, "check"]], rounds, { cwd: bare, env })[0],
    medians([[node, cli, "check"]], rounds, { cwd: many, env })[0],
  ];
  const rows = [
    ['node -e "" (floor)', floor],
    ["verify, 1 file server, 100 tools, no client config", verifyNoConfig],
    ["verify, the same, a covered .mcp.json of 5 unpinned servers", verifyConfig],
    ["check, 100 tools, no client config", checkNone],
    ["check, 100 tools, 20 covered configs of 5 servers each", checkMany],
  ];
  for (const [name, ms] of rows) console.log(`  ${name.padEnd(64)} ${ms.toFixed(1)} ms`);
  const ratio = verifyConfig / floor;
  console.log("\ntargets:");
  console.log(
    `  ${'verify (100-tool file lock, config check on) / node -e ""'.padEnd(64)} ${ratio.toFixed(2)}x  <= 1.50x  ${ratio <= 1.5 ? "PASS" : "FAIL"}`,
  );
  console.log(
    `  ${"check of 20 configs over check of none".padEnd(64)} +${(checkMany - checkNone).toFixed(1)} ms  (no target)`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
