#!/usr/bin/env node
// npm run conformance: the official MCP conformance suite's client scenarios
// that apply to a client that lists tools, or calls them through the guard
// (initialize and the auth/* ones), run against contractpin
// (scripts/conformance-client.mjs). The suite needs
// Node 22, and the project stays on Node 20: both come from the npm registry at
// the exact versions below, into .conformance/ (git-ignored), once.
// Prints a line per scenario and a closing "N passed, M failed"; exit 1 when M > 0.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const SUITE = "0.1.16";
const NODE = "22.23.5";
const ROOT = fileURLToPath(new URL("..", import.meta.url));
const DIR = fileURLToPath(new URL("../.conformance/", import.meta.url));
// The suite colours its output whatever NO_COLOR says.
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g");
const nodePackage = `node-${process.platform === "win32" ? "win" : process.platform}-${process.arch}`;

// Scenarios left out, each with the reason.
const LEFT_OUT = {
  "auth/2025-03-26-oauth-metadata-backcompat":
    "its authorization server metadata names another issuer than the URL it is served for; the official client library refuses that (RFC 8414 section 3.3), and contractpin keeps the check",
  "auth/cross-app-access-complete-flow":
    "enterprise-managed authorization (an extension) exchanges an identity provider's ID token for an ID-JAG; contractpin has no identity provider session to start from",
};

// The suite prints the context it gives the client, secrets and private keys
// included: of a failed scenario, only the names and the client id are shown.
function withoutSecrets(output) {
  return output.replace(/^(With context: )(\{.*\})$/m, (line, label, json) => {
    let context;
    try {
      context = JSON.parse(json);
    } catch {
      return `${label}[not shown]`;
    }
    const shown = ["name", "client_id", "signing_algorithm"];
    for (const key of Object.keys(context)) if (!shown.includes(key)) context[key] = "[secret]";
    return `${label}${JSON.stringify(context)}`;
  });
}

function install() {
  const manifest = {
    name: "contractpin-conformance",
    private: true,
    dependencies: { "@modelcontextprotocol/conformance": SUITE, [nodePackage]: NODE },
  };
  const wanted = JSON.stringify(manifest, null, 2);
  const path = `${DIR}package.json`;
  const ready =
    existsSync(path) &&
    readFileSync(path, "utf8") === wanted &&
    existsSync(`${DIR}node_modules/${nodePackage}/bin/node`);
  if (ready) return;
  mkdirSync(DIR, { recursive: true });
  writeFileSync(path, wanted);
  const r = spawnSync("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd: DIR,
    stdio: "inherit",
  });
  if (r.status !== 0) {
    console.error(`conformance: could not install ${nodePackage}@${NODE} and the suite ${SUITE}`);
    process.exit(2);
  }
}

install();
const node22 = `${DIR}node_modules/${nodePackage}/bin/node`;
const suite = `${DIR}node_modules/@modelcontextprotocol/conformance/dist/index.js`;
const listed = spawnSync(node22, [suite, "list"], { encoding: "utf8" });
const client = (listed.stdout + listed.stderr).split("Client scenarios")[1] ?? "";
const scenarios = [...client.matchAll(/^\s*- (\S+)/gm)]
  .map((m) => m[1])
  .filter((name) => name === "initialize" || name.startsWith("auth/"));
if (!scenarios.includes("initialize") || scenarios.length < 10) {
  console.error("conformance: the suite listed no client scenarios");
  process.exit(2);
}

let passed = 0;
let failed = 0;
for (const name of scenarios) {
  if (name in LEFT_OUT) {
    console.log(`- ${name}: left out (${LEFT_OUT[name]})`);
    continue;
  }
  const r = spawnSync(
    node22,
    [
      suite,
      "client",
      "--command",
      "node scripts/conformance-client.mjs",
      "--scenario",
      name,
      "--timeout",
      "60000",
    ],
    { cwd: ROOT, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } },
  );
  const output = `${r.stdout}${r.stderr}`;
  const checks = /Passed: (\d+)\/(\d+), (\d+) failed, (\d+) warnings/.exec(output);
  const ok = r.status === 0 && checks !== null && checks[3] === "0" && checks[4] === "0";
  if (ok) passed++;
  else failed++;
  console.log(`${ok ? "ok" : "FAILED"} ${name}: ${checks === null ? "no result" : checks[0]}`);
  if (!ok) console.log(withoutSecrets(output.replace(ANSI, "")).replace(/^/gm, "    | "));
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
