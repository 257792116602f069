import { resolve } from "node:path";
import {
  SSEClientTransport,
  SdkHttpError,
  StreamableHTTPClientTransport,
  type Transport,
} from "@modelcontextprotocol/client";
import { ContractpinError } from "../../core/errors.js";
import type { JsonValue } from "../../core/json-value.js";
import { expandReferences, type HttpSource, type StdioSource } from "../../core/server-source.js";
import type { WithDetail } from "../../engine/failure.js";
import { packageVersion } from "../../io/version.js";
import type { ReadContext } from "../read-tools.js";
import { describeError } from "./describe-error.js";
import { tapFetch } from "./http-tap.js";
import { RawLog } from "./raw-log.js";
import { connect, listTools } from "./session.js";
import { StdioTransport } from "./stdio-transport.js";

// What a stdio server inherits from contractpin's environment, as the MCP
// library does: enough to run, and none of CI's other secrets.
const INHERITED_ENV = [
  "HOME",
  "LOGNAME",
  "PATH",
  "SHELL",
  "TERM",
  "USER",
  "TMPDIR",
  "LANG",
  "SYSTEMROOT",
];

/**
 * Reads a live server over stdio or HTTP: connects with the official MCP
 * client, pages through tools/list, and returns the tools exactly as the
 * strict parser read them off the wire. Within ctx.timeoutMs, or it fails;
 * the connection (and for stdio every process of the server) is always
 * closed before this returns.
 */
export async function readLiveTools(
  source: StdioSource | HttpSource,
  ctx: ReadContext,
): Promise<JsonValue[]> {
  const deadline = AbortSignal.timeout(ctx.timeoutMs);
  const outer = ctx.signal === undefined ? deadline : AbortSignal.any([ctx.signal, deadline]);
  // `stop` ends everything for this server: the deadline, an interrupt, or the
  // first message that fails strict parsing. Once it fires, no step may start
  // anything new (no fallback connection, no retry).
  const stop = new AbortController();
  const log = new RawLog(ctx);
  const stopped = new Promise<never>((_, reject) => {
    const onAbort = () => {
      // The catch below words a timeout itself; an interrupt keeps its own error.
      reject(outer.reason);
      stop.abort();
    };
    if (outer.aborted) onAbort();
    outer.addEventListener("abort", onAbort, { once: true });
    log.onFailure = (err) => {
      reject(err);
      stop.abort();
    };
  });
  stopped.catch(() => undefined);
  const transports: Transport[] = [];
  let closing = false;
  const track = <T extends Transport>(t: T): T => {
    // A transport made after the read ended (a late fallback) is closed at once.
    if (closing) {
      void closeTransport(t);
      throw new Error("the read of this server has ended");
    }
    transports.push(t);
    return t;
  };
  try {
    return await Promise.race([readWith(source, ctx, log, stop.signal, track), stopped]);
  } catch (err) {
    const detail = transports.flatMap((t) =>
      t instanceof StdioTransport ? t.stderrTail.lines() : [],
    );
    const message =
      deadline.aborted && !(ctx.signal?.aborted ?? false)
        ? `timed out after ${ctx.timeoutMs / 1000} s`
        : describeError(log.error ?? err, ctx.timeoutMs / 1000);
    throw Object.assign(new ContractpinError("SERVER_UNREADABLE", message, { cause: err }), {
      detail,
    } satisfies WithDetail);
  } finally {
    closing = true;
    stop.abort();
    await Promise.all(transports.map((t) => closeTransport(t)));
  }
}

async function readWith(
  source: StdioSource | HttpSource,
  ctx: ReadContext,
  log: RawLog,
  signal: AbortSignal,
  track: <T extends Transport>(t: T) => T,
): Promise<JsonValue[]> {
  const version = packageVersion();
  const makeTransport =
    source.transport === "stdio"
      ? stdioFactory(source, ctx, log, track)
      : httpFactory(source, ctx, log, track, false);
  let session;
  try {
    session = await connect(makeTransport, version, signal, ctx.timeoutMs);
  } catch (err) {
    // A server that speaks only the older HTTP+SSE transport answers a
    // Streamable HTTP POST with 400, 404 or 405: try the legacy transport.
    if (
      signal.aborted ||
      source.transport !== "http" ||
      !(err instanceof SdkHttpError) ||
      ![400, 404, 405].includes(err.status)
    )
      throw err;
    try {
      session = await connect(
        httpFactory(source, ctx, log, track, true),
        version,
        signal,
        ctx.timeoutMs,
      );
    } catch {
      throw err;
    }
  }
  return listTools(session.client, log, signal, ctx.timeoutMs);
}

function stdioFactory(
  source: StdioSource,
  ctx: ReadContext,
  log: RawLog,
  track: <T extends Transport>(t: T) => T,
) {
  const where = (what: string) => `${what} of the command`;
  const argv = source.command.map((arg, i) =>
    expandReferences(arg, ctx.env, where(`argument ${i}`)),
  );
  const env: Record<string, string> = {};
  for (const name of INHERITED_ENV) {
    const value = ctx.env[name];
    if (value !== undefined) env[name] = value;
  }
  for (const [name, value] of Object.entries(source.env ?? {}))
    env[name] = expandReferences(value, ctx.env, `env ${name}`);
  const cwd = resolve(ctx.lockDir, source.cwd ?? ".");
  return () => track(new StdioTransport({ command: argv[0]!, args: argv.slice(1), env, cwd }, log));
}

function httpFactory(
  source: HttpSource,
  ctx: ReadContext,
  log: RawLog,
  track: <T extends Transport>(t: T) => T,
  legacySse: boolean,
) {
  const url = parseUrl(expandReferences(source.url, ctx.env, "the URL"));
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(source.headers ?? {})) {
    const expanded = expandReferences(value, ctx.env, `header ${name}`);
    // Checked here so that the library's error, which quotes the value, never shows it.
    if (/[\r\n\0]/.test(expanded)) {
      throw new ContractpinError(
        "SOURCE_INVALID",
        `header ${name} has a line break or NUL in its value once its references are expanded`,
      );
    }
    headers[name] = expanded;
  }
  const fetch = tapFetch(log, headers);
  return () =>
    track(
      legacySse
        ? new SSEClientTransport(url, { fetch })
        : new StreamableHTTPClientTransport(url, {
            fetch,
            reconnectionOptions: {
              maxRetries: 0,
              initialReconnectionDelay: 1000,
              maxReconnectionDelay: 1000,
              reconnectionDelayGrowFactor: 1,
            },
          }),
    );
}

/** Ends a session: DELETE for a Streamable HTTP session, then the transport's own close (which ends a stdio server's process group). */
async function closeTransport(transport: Transport): Promise<void> {
  if (transport instanceof StreamableHTTPClientTransport && transport.sessionId !== undefined) {
    await Promise.race([transport.terminateSession().catch(() => undefined), delay(1000)]);
  }
  await transport.close().catch(() => undefined);
}

function parseUrl(text: string): URL {
  try {
    return new URL(text);
  } catch {
    throw new ContractpinError(
      "SOURCE_INVALID",
      "the URL is not a valid URL once its references are expanded",
    );
  }
}

const delay = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());
