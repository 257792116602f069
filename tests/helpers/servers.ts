import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { killAtEnd } from "./cleanup.js";

const modules = new URL("../../node_modules/@modelcontextprotocol/", import.meta.url);

/** Real MCP servers from npm (devDependencies), and the fake ones of the fixtures. */
export const SERVERS = {
  memory: fileURLToPath(new URL("server-memory/dist/index.js", modules)),
  everything: fileURLToPath(new URL("server-everything/dist/index.js", modules)),
  filesystem: fileURLToPath(new URL("server-filesystem/dist/index.js", modules)),
  // Both advertise resources and answer resources/templates/list with -32601
  // (MCP-FACTS). postgres starts without a database (give it an unreachable
  // URL); puppeteer starts with PUPPETEER_SKIP_DOWNLOAD=1 and no browser.
  postgres: fileURLToPath(new URL("server-postgres/dist/index.js", modules)),
  puppeteer: fileURLToPath(new URL("server-puppeteer/dist/index.js", modules)),
  fakeStdio: fileURLToPath(new URL("../fixtures/servers/fake-stdio-server.mjs", import.meta.url)),
  fakeHttp: fileURLToPath(new URL("../fixtures/servers/fake-http-server.mjs", import.meta.url)),
  recordingHttp: fileURLToPath(
    new URL("../fixtures/servers/recording-http-server.mjs", import.meta.url),
  ),
  sdkSse: fileURLToPath(new URL("../fixtures/servers/sdk-sse-server.mjs", import.meta.url)),
  envReport: fileURLToPath(new URL("../fixtures/servers/env-report-server.mjs", import.meta.url)),
};

/**
 * The raw tools/list response line of a stdio server, byte for byte as it
 * wrote it: the test's own minimal client, independent of contractpin.
 * With client `capabilities`, it lists once the server has said
 * notifications/tools/list_changed after initialization (server-everything
 * adds the tools of those capabilities then).
 */
export function rawStdioDump(
  argv: string[],
  env: Record<string, string> = {},
  capabilities?: Record<string, unknown>,
): Buffer {
  const script = `
    const { spawn } = require("node:child_process");
    const [cmd, ...args] = JSON.parse(process.argv[1]);
    const capabilities = JSON.parse(process.argv[3]);
    const wait = capabilities !== null;
    let listed = false;
    const child = spawn(cmd, args, { stdio: ["pipe", "pipe", "ignore"], env: { ...process.env, ...JSON.parse(process.argv[2]) } });
    let pending = Buffer.alloc(0);
    const send = (m) => child.stdin.write(JSON.stringify(m) + "\\n");
    child.stdout.on("data", (d) => {
      pending = Buffer.concat([pending, d]);
      let nl;
      while ((nl = pending.indexOf(10)) >= 0) {
        const line = pending.subarray(0, nl); pending = pending.subarray(nl + 1);
        const { id, method } = JSON.parse(line.toString());
        const list = () => send({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} });
        if (id === 1) { send({ jsonrpc: "2.0", method: "notifications/initialized" }); if (!wait) list(); }
        if (wait && method === "notifications/tools/list_changed" && !listed) { listed = true; list(); }
        if (id === 2) { process.stdout.write(line); child.kill(); }
      }
    });
    send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: capabilities ?? {}, clientInfo: { name: "test", version: "0" } } });`;
  const r = spawnSync(
    process.execPath,
    ["-e", script, JSON.stringify(argv), JSON.stringify(env), JSON.stringify(capabilities ?? null)],
    { timeout: 30_000 },
  );
  if (r.status !== 0 || r.stdout.length === 0) throw new Error(`raw dump failed: ${r.stderr}`);
  return r.stdout;
}

/**
 * A surface dump (SPEC.md 10.3) of a stdio server, from the raw response
 * lines byte for byte: the test's own minimal client, independent of
 * contractpin. It sends initialize, then each of `methods` once (one page:
 * the servers it is used for do not paginate), and keeps every answer,
 * errors included, as the server wrote it.
 */
export function rawSurfaceDump(
  argv: string[],
  methods: string[],
  env: Record<string, string> = {},
): string {
  const script = `
    const { spawn } = require("node:child_process");
    const [cmd, ...args] = JSON.parse(process.argv[1]);
    const methods = JSON.parse(process.argv[3]);
    const child = spawn(cmd, args, { stdio: ["pipe", "pipe", "ignore"], env: { ...process.env, ...JSON.parse(process.argv[2]) } });
    const lines = [];
    let pending = Buffer.alloc(0);
    const send = (m) => child.stdin.write(JSON.stringify(m) + "\\n");
    const next = () => {
      const i = lines.length - 1;
      if (i < methods.length) return send({ jsonrpc: "2.0", id: i + 2, method: methods[i], params: {} });
      const members = ['"contractpin-dump": "2"', '"initialize": ' + lines[0]];
      methods.forEach((m, j) => members.push(JSON.stringify(m) + ": [" + lines[j + 1] + "]"));
      process.stdout.write("{\\n" + members.join(",\\n") + "\\n}\\n");
      child.kill();
    };
    child.stdout.on("data", (d) => {
      pending = Buffer.concat([pending, d]);
      let nl;
      while ((nl = pending.indexOf(10)) >= 0) {
        const line = pending.subarray(0, nl); pending = pending.subarray(nl + 1);
        const { id } = JSON.parse(line.toString());
        if (id !== lines.length + 1) continue;
        lines.push(line.toString());
        if (id === 1) send({ jsonrpc: "2.0", method: "notifications/initialized" });
        next();
      }
    });
    send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "test", version: "0" } } });`;
  const r = spawnSync(
    process.execPath,
    ["-e", script, JSON.stringify(argv), JSON.stringify(env), JSON.stringify(methods)],
    { timeout: 30_000, encoding: "utf8" },
  );
  if (r.status !== 0 || r.stdout.length === 0)
    throw new Error(`raw surface dump failed: ${r.stderr}`);
  return r.stdout;
}

/** Writes a raw dump to `path`. */
export function writeRawDump(
  path: string,
  argv: string[],
  env: Record<string, string> = {},
): string {
  writeFileSync(path, rawStdioDump(argv, env));
  return path;
}

/** A server process started for a test, stopped by `stop()`. */
export interface Running {
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

function stopper(child: ChildProcess): () => Promise<void> {
  return () =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill("SIGKILL");
    });
}

/** Starts server-everything in Streamable HTTP mode on a free loopback port. */
export async function startEverythingHttp(): Promise<Running> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 30_000);
    const child = spawn(process.execPath, [SERVERS.everything, "streamableHttp"], {
      env: { ...process.env, PORT: String(port) },
      stdio: ["ignore", "ignore", "pipe"],
    });
    killAtEnd(child);
    const ready = await new Promise<boolean>((resolve) => {
      let err = "";
      const timer = setTimeout(() => resolve(false), 15_000);
      child.stderr!.on("data", (d: Buffer) => {
        err += d.toString();
        if (err.includes("listening on port")) {
          clearTimeout(timer);
          resolve(true);
        }
      });
      child.once("exit", () => {
        clearTimeout(timer);
        resolve(false);
      });
    });
    if (ready) return { url: `http://127.0.0.1:${port}/mcp`, process: child, stop: stopper(child) };
    await stopper(child)();
  }
  throw new Error("server-everything did not start");
}

/** Starts the fake HTTP server in `mode` on a free loopback port (mode "tls KEY CERT" for HTTPS). */
export async function startFakeHttp(
  mode: string,
  stateFile?: string,
  env: Record<string, string> = {},
): Promise<Running> {
  const child = spawn(
    process.execPath,
    [SERVERS.fakeHttp, mode, ...(stateFile ? [stateFile] : [])],
    {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  killAtEnd(child);
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.once("data", (d: Buffer) =>
      resolve(Number(/listening on (\d+)/.exec(d.toString())![1])),
    );
    child.once("exit", () => reject(new Error("fake server exited")));
  });
  return { url: `http://127.0.0.1:${port}/mcp`, process: child, stop: stopper(child) };
}

/**
 * Starts a fixture HTTP server script (`node SCRIPT ARGS...`, which prints
 * "listening on PORT") and returns it with the URL of `path` on it.
 */
export async function startHttpScript(
  script: string,
  args: string[],
  path = "/mcp",
): Promise<Running> {
  const child = spawn(process.execPath, [script, ...args], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  killAtEnd(child);
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.once("data", (d: Buffer) =>
      resolve(Number(/listening on (\d+)/.exec(d.toString())![1])),
    );
    child.once("exit", () => reject(new Error(`${script} exited`)));
  });
  return { url: `http://127.0.0.1:${port}${path}`, process: child, stop: stopper(child) };
}

/** True while a process with this pid exists and is not a zombie waiting to be reaped. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

/** True once `pid` has ended, polling for up to `ms` (signals are delivered asynchronously). */
export async function ended(pid: number, ms = 2000): Promise<boolean> {
  const end = Date.now() + ms;
  while (alive(pid)) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 25));
  }
  return true;
}

/**
 * A loopback port on which a connection is refused, and stays refused: a TCP
 * socket is bound to it but never listens, so no other process can take the
 * port while the test runs. (node cannot bind a TCP socket without listening;
 * a small python3 process, already needed by pythonDigest, holds it.) The
 * socket is released when the test file ends: its holder exits when its stdin
 * closes, and is killed then too.
 */
export async function freePort(): Promise<number> {
  const holder = spawn(
    "python3",
    [
      "-c",
      "import socket, sys\n" +
        "s = socket.socket()\n" +
        "s.bind(('127.0.0.1', 0))\n" +
        "print(s.getsockname()[1], flush=True)\n" +
        "sys.stdin.read()\n",
    ],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  killAtEnd(holder);
  const port = await new Promise<number>((resolve, reject) => {
    holder.stdout!.once("data", (d: Buffer) => resolve(Number(d.toString().trim())));
    holder.once("exit", () => reject(new Error("the port holder exited")));
  });
  // The holder must not keep the test file's process alive.
  for (const handle of [holder, holder.stdin, holder.stdout] as unknown as { unref(): void }[])
    handle.unref();
  return port;
}
