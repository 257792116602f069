// The OAuth fixture (tests/fixtures/servers/oauth-server.mjs) and a login
// driven as a person would: on a pseudo-terminal (python3's pty module), the
// printed authorization URL fetched by the test, which the fixture's
// authorization server approves at once by redirecting to the callback.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { killAtEnd } from "./cleanup.js";
import { CLI, runCli } from "./cli.js";

const SCRIPT = fileURLToPath(new URL("../fixtures/servers/oauth-server.mjs", import.meta.url));

export interface OAuthFixture {
  issuer: string;
  /** The protected MCP server. */
  url: string;
  /** The same server at another origin. */
  otherUrl: string;
  /** Each request the fixture received, and each token it issued. */
  report(): Array<Record<string, unknown>>;
}

/** Starts the fixture, recording into `dir`/report.jsonl. */
export async function startOAuthFixture(
  dir: string,
  env: Record<string, string> = {},
): Promise<OAuthFixture> {
  const report = join(dir, "report.jsonl");
  const child = spawn(process.execPath, [SCRIPT, report], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  killAtEnd(child);
  const [as, mcp, other] = await new Promise<number[]>((resolve, reject) => {
    child.stdout!.once("data", (d: Buffer) =>
      resolve(/listening (\d+) (\d+) (\d+)/.exec(d.toString())!.slice(1).map(Number)),
    );
    child.once("exit", () => reject(new Error("the OAuth fixture exited")));
  });
  return {
    issuer: `http://127.0.0.1:${as}/`,
    url: `http://127.0.0.1:${mcp}/mcp`,
    otherUrl: `http://127.0.0.1:${other}/mcp`,
    report: () =>
      readFileSync(report, "utf8")
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

const DRIVER = `
import json, os, pty, re, select, subprocess, sys, urllib.error, urllib.parse, urllib.request
main, sub = pty.openpty()
env = dict(os.environ)
env.update(json.loads(sys.argv[1]))
p = subprocess.Popen(json.loads(sys.argv[2]), stdout=sub, stderr=sub, stdin=sub, env=env, cwd=sys.argv[3])
os.close(sub)
data, fetched, callback = b"", False, None

class Kept(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args):
        return None

def follow(url, state):
    # The authorization server's redirect to the callback, its state as sent
    # ("as-sent"), replaced ("forged"), or left out ("none").
    if state == "as-sent":
        urllib.request.urlopen(url).read()
        return None
    try:
        urllib.request.build_opener(Kept).open(url)
        raise RuntimeError("the authorization server did not redirect")
    except urllib.error.HTTPError as e:
        location = e.headers["Location"]
    parts = urllib.parse.urlsplit(location)
    query = [(k, v) for k, v in urllib.parse.parse_qsl(parts.query) if k != "state"]
    if state == "forged":
        query.append(("state", "forged-" + "A" * 36))
    target = urllib.parse.urlunsplit(parts._replace(query=urllib.parse.urlencode(query)))
    try:
        with urllib.request.urlopen(target) as r:
            return {"status": r.status, "body": r.read().decode()}
    except urllib.error.HTTPError as e:
        return {"status": e.code, "body": e.read().decode()}
while True:
    r, _, _ = select.select([main], [], [], 30)
    if not r:
        break
    try:
        chunk = os.read(main, 65536)
    except OSError:
        break
    if not chunk:
        break
    data += chunk
    m = re.search(rb"(http://127\\.0\\.0\\.1:\\d+/authorize\\S+)", data)
    if m and not fetched:
        fetched = True
        try:
            callback = follow(m.group(1).decode(), sys.argv[4])
        except Exception:
            pass
sys.stdout.write(json.dumps({"code": p.wait(), "data": data.decode("utf-8", "replace"), "callback": callback}))
`;

/** How the callback the driver requests carries `state`: as the authorization server sent it, replaced by another, or left out. */
export type CallbackState = "as-sent" | "forged" | "none";

/**
 * Runs `contractpin login ARGS` on a pseudo-terminal and completes the
 * browser's part: the authorization URL is requested and its redirect to the
 * callback followed, with `state` as `callbackState` says; for a state other
 * than as sent, `callback` is the callback's HTTP answer.
 */
export function loginOnTerminal(
  args: string[],
  env: Record<string, string>,
  cwd: string,
  callbackState: CallbackState = "as-sent",
): { code: number; data: string; callback: { status: number; body: string } | null } {
  const r = spawnSync(
    "python3",
    [
      "-c",
      DRIVER,
      JSON.stringify(env),
      JSON.stringify([process.execPath, CLI, "login", ...args]),
      cwd,
      callbackState,
    ],
    { encoding: "utf8", timeout: 60_000 },
  );
  if (r.status !== 0) throw new Error(`the login driver failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as ReturnType<typeof loginOnTerminal>;
}

/** Everything a run leaves behind that a person or CI could see: its outputs and the lock's files in `dir`. */
export function everythingShown(dir: string, outputs: string[]): string {
  const files = readdirSync(dir).filter((f) => f.startsWith("contractpin"));
  return [...outputs, ...files.map((f) => readFileSync(join(dir, f), "utf8"))].join("\n");
}

/** Every access and refresh token the fixture issued (a refresh may come without a refresh token). */
export function issuedTokens(fx: OAuthFixture): string[] {
  return fx
    .report()
    .filter((e) => e.issued !== undefined)
    .flatMap((e) => [e.issued, e.refresh].filter((t) => t !== undefined).map(String));
}

/**
 * Asserts that no token the fixture issued, nor any of `also`, is in
 * `shown`, after asserting that it issued at least `least` (an access and a
 * refresh token per grant): a check over no tokens holds whatever was shown,
 * as it would for a test run on its own, without the ones that obtain them.
 */
export function assertNoTokenShown(
  fx: OAuthFixture,
  shown: string,
  { least = 2, also = [] }: { least?: number; also?: string[] } = {},
): void {
  const tokens = issuedTokens(fx);
  assert.ok(
    tokens.length >= least,
    `the fixture issued ${tokens.length} tokens, fewer than the ${least} this check is about`,
  );
  for (const t of [...tokens, ...also])
    assert.ok(!shown.includes(t), "a token or secret was shown");
}

/**
 * `add linear --url` then `verify` in `dir`, both passing, their outputs kept
 * in `outputs`; the server was sent the first access token issued, which is returned.
 */
export function addAndVerify(
  fx: OAuthFixture,
  dir: string,
  env: Record<string, string>,
  outputs: string[],
): string {
  const add = runCli(["add", "linear", "--url", fx.url], { cwd: dir, env });
  outputs.push(add.stdout, add.stderr);
  assert.equal(add.code, 0, add.stderr);
  const verify = runCli(["verify"], { cwd: dir, env });
  outputs.push(verify.stdout, verify.stderr);
  assert.equal(verify.code, 0, verify.stdout + verify.stderr);
  assert.match(verify.stdout, /linear\s+ok/);
  const [access] = issuedTokens(fx);
  const mcp = fx.report().filter((e) => e.path === "/mcp" && e.method === "POST");
  assert.ok(mcp.some((e) => e.authorization === `Bearer ${access}`));
  return access!;
}

/** Revokes every access token the fixture issued so far (the server then answers 401), and with `refresh` every refresh token too. */
export async function revokeTokens(fx: OAuthFixture, refresh = false): Promise<void> {
  const res = await fetch(new URL(`test/revoke${refresh ? "?refresh=1" : ""}`, fx.issuer), {
    method: "POST",
  });
  if (res.status !== 204) throw new Error(`the fixture did not revoke: HTTP ${res.status}`);
}

/** Each token request the fixture received (its form fields), in order. */
export function tokenGrants(
  fx: OAuthFixture,
): Array<{ grant_type: string; scope?: string; refresh_token?: string }> {
  return fx
    .report()
    .filter((e) => e.path === "/token")
    .map((e) => JSON.parse(String(e.body)) as { grant_type: string });
}

/** `add NAME --url URL --auth MODE --issuer ISSUER --client-id ID` and the rest of `extra`. */
export const addAuth = (
  fx: OAuthFixture,
  name: string,
  mode: string,
  id: string,
  extra: string[],
) => [
  "add",
  name,
  "--url",
  fx.url,
  "--auth",
  mode,
  "--issuer",
  fx.issuer,
  "--client-id",
  id,
  ...extra,
];
