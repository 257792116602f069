// auth/scope-step-up through contractpin as a person uses it
// (scripts/conformance-client.mjs runs this). The scenario's server lets
// tools/list through with the scope its challenge names (mcp:basic) and
// refuses tools/call with 403 insufficient_scope (mcp:basic mcp:write); its
// authorization server scores the first authorization request (the initial
// scope) and the second (every scope, the escalation). So:
//   1. `contractpin login --url URL`, then `contractpin add NAME --url URL`;
//   2. the official MCP client in front of `contractpin guard NAME` lists the
//      tools and calls the scenario's tool: the guard's upstream meets the 403,
//      and the guard, which never opens a browser, fails the call with the
//      line `... run: contractpin login NAME --scope '...'`;
//   3. that command, as printed, run on a terminal (the second authorization);
//   4. a new guard, and the same call, which must now return the tool's result.
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport, getDefaultEnvironment } from "@modelcontextprotocol/client/stdio";

const NAME = "conformance";
const TOOL = "test-tool";

/**
 * Runs the steps above; `run(argv, driver)` runs a contractpin command in the
 * lock's folder (through the pty browser when `driver`) and returns its exit
 * code; `passOn(what, stdout, stderr)` shows output with the scenario's
 * secrets masked (false when one was in it). Resolves to the exit code of the whole.
 */
export async function scopeStepUp({ cli, url, home, env, run, passOn, loginFlags }) {
  const contractpin = (...args) => [process.execPath, cli, ...args];
  let code = run(contractpin("login", "--url", url, ...loginFlags), true);
  if (code === 0) code = run(contractpin("add", NAME, "--url", url));
  if (code !== 0) return code;

  const first = await throughGuard(cli, home, env);
  if (!passOn("guard", "", first.stderr)) return 1;
  if (first.result !== undefined) {
    console.error("conformance-step-up: the first call succeeded: the server asked for no step-up");
    return 1;
  }
  // The command the guard named, as a person copies it off the message.
  const named = /run: contractpin login (\S+) --scope '([^']*)'/.exec(first.error);
  if (named === null || named[1] !== NAME) {
    console.error(`conformance-step-up: the guard named no login --scope: ${first.error}`);
    return 1;
  }
  // --no-browser and --timeout only keep the harness's pty browser in charge.
  code = run(
    contractpin("login", NAME, "--scope", named[2], "--no-browser", "--timeout", "30"),
    true,
  );
  if (code !== 0) return code;

  const second = await throughGuard(cli, home, env);
  if (!passOn("guard", "", second.stderr)) return 1;
  const text = second.result?.content?.[0]?.text;
  if (second.result === undefined || second.result.isError === true || text !== "test") {
    console.error(`conformance-step-up: the call after the login failed: ${second.error ?? text}`);
    return 1;
  }
  console.log(`conformance-step-up: ${TOOL} answered through the guard after the step-up login`);
  return 0;
}

/**
 * One client session through `contractpin guard NAME` (stdio, in the lock's
 * folder, as a client config launches it): tools/list, then tools/call of the
 * scenario's tool. Gives the call's result or the error, and the guard's stderr.
 */
async function throughGuard(cli, home, env) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cli, "guard", NAME],
    cwd: home,
    env: { ...getDefaultEnvironment(), ...env },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (d) => (stderr += d.toString()));
  const outcome = await session(transport);
  return { ...outcome, stderr };
}

async function session(transport) {
  const client = new Client({ name: "contractpin-conformance", version: "1.0.0" });
  try {
    await client.connect(transport);
    const { tools } = await client.listTools();
    if (!tools.some((t) => t.name === TOOL)) return { error: `the guard listed no ${TOOL}` };
    return { result: await client.callTool({ name: TOOL, arguments: {} }) };
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  } finally {
    await client.close().catch(() => undefined);
  }
}
