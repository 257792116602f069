#!/usr/bin/env node
// The client that the official conformance suite runs (scripts/conformance.mjs):
// contractpin as a person uses it. The suite appends the server URL and names the
// scenario in MCP_CONFORMANCE_SCENARIO (client credentials, a client secret or
// a private key, where a scenario gives them, in MCP_CONFORMANCE_CONTEXT).
//   initialize: `contractpin dump --surface --url URL`, which initializes and reads what it serves
//   auth/*:     `contractpin login --url URL --no-browser` on a pseudo-terminal (login
//               refuses without one), the printed authorization URL opened by this
//               script as a browser would (the suite's authorization server approves
//               at once and redirects to contractpin's loopback callback), then
//               `contractpin dump --surface --url URL` with the stored credential.
//   auth/client-credentials-*: what a user configuring CI does: the issuer read
//               from the server's protected-resource metadata (RFC 9728) by this
//               script, then `contractpin add NAME --url URL --auth client_credentials
//               --issuer ISSUER ...` with the scenario's secret or private key in a
//               variable, and `contractpin verify` of that lock under CI=true.
//   auth/scope-step-up: login, add, then the official MCP client through
//               `contractpin guard` calling the scenario's tool, the login the
//               guard names for the wider scope, and the call again through a
//               new guard (scripts/conformance-step-up.mjs).
// Credentials and the lock go to a temporary folder of their own (every
// command runs there, as in a project's folder), removed at the end.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { scopeStepUp } from "./conformance-step-up.mjs";

const CLI = fileURLToPath(new URL("../dist/bin/contractpin.cjs", import.meta.url));
const url = process.argv.at(-1);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "{}");
// The client ID metadata document the suite expects a client to name.
const CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json";

// A browser on a pseudo-terminal: runs ARGV, fetches the first authorization
// URL it prints (following redirects, as a browser does), passes its output on.
const DRIVER = String.raw`
import json, os, pty, re, select, subprocess, sys, urllib.request
main, sub = pty.openpty()
p = subprocess.Popen(json.loads(sys.argv[1]), stdout=sub, stderr=sub, stdin=sub)
os.close(sub)
data, opened = b"", False
while True:
    r, _, _ = select.select([main], [], [], 60)
    if not r:
        break
    try:
        chunk = os.read(main, 65536)
    except OSError:
        break
    if not chunk:
        break
    data += chunk
    m = re.search(rb"(https?://\S+?[?&]response_type=code\S*)", data)
    if m and not opened:
        opened = True
        try:
            urllib.request.urlopen(m.group(1).decode()).read()
        except Exception as e:
            sys.stderr.write("browser: %s\n" % e)
sys.stderr.write(data.decode("utf-8", "replace"))
sys.exit(p.wait())
`;

const home = mkdtempSync(join(tmpdir(), "contractpin-conformance-"));
const env = { ...process.env, CONTRACTPIN_CONFIG_DIR: home, CONTRACTPIN_CREDENTIAL_STORE: "file" };
delete env.CI; // a person at a terminal, not a CI job
// The context's secrets: contractpin must never print one. The PEM is matched
// by each line of its key material, since a leak need not keep its line breaks.
const secrets = [context.client_secret, ...(context.private_key_pem ?? "").split("\n")].filter(
  (s) => typeof s === "string" && s.length >= 16 && !s.startsWith("-----"),
);
// Passes a command's output on with any secret masked; false when one was in it.
const passOn = (what, stdout, stderr) => {
  const leaked = secrets.filter((s) => `${stdout}${stderr}`.includes(s));
  const mask = (text) => leaked.reduce((t, s) => t.replaceAll(s, "[secret]"), text);
  process.stdout.write(mask(stdout));
  process.stderr.write(mask(stderr));
  if (leaked.length > 0)
    console.error(`conformance-client: ${what} printed a secret of the scenario (masked above)`);
  return leaked.length === 0;
};
// Runs ARGV (through the pty browser when DRIVER) in the temporary folder; a
// secret in its output fails the scenario.
const run = (argv, extra = {}, driver = false) => {
  const options = { cwd: home, encoding: "utf8" };
  const r = driver
    ? spawnSync("python3", ["-c", DRIVER, JSON.stringify(argv)], { ...options, env })
    : spawnSync(argv[0], argv.slice(1), { ...options, env: { ...env, ...extra } });
  if (!passOn(argv[2], r.stdout ?? "", r.stderr ?? "")) return 1;
  return r.status ?? 1;
};

// The issuer as a careful user finds it before writing it into the lock: the
// protected-resource metadata at the RFC 9728 well-known URL, which must name
// this very server and exactly one authorization server. contractpin itself
// never discovers the issuer it pins (no trust on first use). Undefined when
// the metadata does not say.
async function discoverIssuer(server) {
  const u = new URL(server);
  const path = u.pathname === "/" ? "" : u.pathname;
  const r = await fetch(`${u.origin}/.well-known/oauth-protected-resource${path}`);
  const prm = r.ok ? await r.json() : {};
  const issuers = prm.authorization_servers ?? [];
  if (prm.resource === server && issuers.length === 1) return issuers[0];
  console.error(`conformance-client: no single authorization server for ${server}`);
  return undefined;
}

// A client_credentials lock as a user writes it, then verify as CI runs it.
// The secret (or PEM key) travels only in a variable, never on a command line.
async function clientCredentials() {
  const lock = join(home, "contractpin.lock");
  const credential =
    context.private_key_pem === undefined
      ? ["--client-secret-env", "CONFORMANCE_CLIENT_SECRET", context.client_secret]
      : ["--private-key-env", "CONFORMANCE_PRIVATE_KEY", context.private_key_pem];
  env[credential[1]] = credential[2];
  const issuer = await discoverIssuer(url);
  if (issuer === undefined) return 1;
  const add = [process.execPath, CLI, "add", "conformance", "--url", url, "--lock", lock];
  add.push("--auth", "client_credentials", "--issuer", issuer);
  add.push("--client-id", context.client_id, credential[0], credential[1]);
  const code = run(add);
  if (code !== 0) return code;
  const allow = `${credential[1]}=${new URL(url).origin}`;
  return run([process.execPath, CLI, "verify", "--lock", lock, "--allow-env", allow], {
    CI: "true",
  });
}

// How the harness logs in on its pty (no real browser, a bounded wait), and
// the client ID metadata document a deployment would host, which the library
// uses only where the authorization server supports them.
const LOGIN_FLAGS = [
  "--no-browser",
  "--timeout",
  "30",
  "--client-metadata-url",
  CLIENT_METADATA_URL,
];

let code = 0;
try {
  if (scenario.startsWith("auth/client-credentials-")) {
    code = await clientCredentials();
  } else if (scenario === "auth/scope-step-up") {
    code = await scopeStepUp({
      cli: CLI,
      url,
      home,
      env,
      run: (argv, driver) => run(argv, {}, driver),
      passOn,
      loginFlags: LOGIN_FLAGS,
    });
  } else {
    if (scenario.startsWith("auth/")) {
      const login = [process.execPath, CLI, "login", "--url", url, ...LOGIN_FLAGS];
      if (context.client_id !== undefined) {
        login.push("--client-id", context.client_id);
        if (context.client_secret !== undefined) {
          env.CONFORMANCE_CLIENT_SECRET = context.client_secret;
          login.push("--client-secret-env", "CONFORMANCE_CLIENT_SECRET");
        }
      }
      code = run(login, {}, true);
    }
    if (code === 0) code = run([process.execPath, CLI, "dump", "--surface", "--url", url]);
  }
} finally {
  rmSync(home, { recursive: true, force: true });
}
process.exit(code);
