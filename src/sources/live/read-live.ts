import {
  SdkHttpError,
  StreamableHTTPClientTransport,
  type Transport,
} from "@modelcontextprotocol/client";
import { ContractpinError, isContractpinError, type WithDetail } from "../../core/errors.js";
import type { JsonValue } from "../../core/json/json-value.js";
import type { HttpSource, StdioSource } from "../../core/source/server-source.js";
import { packageVersion } from "../../io/version.js";
import { within } from "../../io/timers.js";
import type { ReadContext, ServerRead } from "../read-context.js";
import { describeError, describeExit } from "./describe-error.js";
import { withheldEnvHint } from "./env-hint.js";
import { mendNpxFolder, npxFolder, type NpxFolder } from "./npx-cache.js";
import { silentRunnerHint } from "./runner-hint.js";
import { acceptAnyHandshake } from "./handshake-view.js";
import { httpFactory } from "./http-client.js";
import { RawLog } from "./raw-log.js";
import { connect, listTools } from "./session.js";
import { advertisesTools, readSurface, servesMore } from "./read-surface.js";
import { RUNNER_ENV } from "./runner-env.js";
import { INHERITED_ENV, stdioSpawnSpec } from "./spawn-spec.js";
import { StdioTransport } from "./stdio-transport.js";

// On stdio, a server that leaves server/discover unanswered this long speaks
// an older protocol: the client falls back to initialize on the same pipe. A
// slice of the deadline (at most half of it), never all of it. Over HTTP the
// probe keeps the whole deadline, since a silent endpoint is an outage.
const PROBE_SLICE_MS = 4000;

/**
 * Reads a live server over stdio or HTTP: connects with the official MCP
 * client, pages through tools/list, and returns the tools exactly as the
 * strict parser read them off the wire. Within ctx.timeoutMs, or it fails:
 * a result finished after the deadline (a long synchronous parse can hold the
 * timer past it) is not accepted either. The connection (and for stdio every
 * process of the server) is always closed before this returns.
 */
export async function readLiveTools(
  source: StdioSource | HttpSource,
  ctx: ReadContext,
): Promise<JsonValue[]> {
  const { surface: _ignored, ...toolsOnly } = ctx;
  return (await readLiveServer(source, toolsOnly)).tools;
}

/**
 * {@link readLiveTools}, and with `ctx.surface` the server's instructions and
 * the lists it advertises (SPEC.md 10.1), read on the same connection within
 * the same deadline, from the raw responses.
 */
export async function readLiveServer(
  source: StdioSource | HttpSource,
  ctx: ReadContext,
): Promise<ServerRead> {
  const endsAt = performance.now() + ctx.timeoutMs;
  const pastDeadline = () => performance.now() >= endsAt;
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
    return acceptAnyHandshake(t);
  };
  // npx's install folder, to leave its cache as it was found (npx-cache.ts).
  let npx: NpxFolder | undefined;
  let failure: ContractpinError | undefined;
  if (source.transport === "stdio") {
    try {
      npx = npxFolder(stdioSpawnSpec(source, { env: ctx.env, lockDir: ctx.lockDir }));
    } catch {
      // A definition that cannot be expanded: the read below says why.
    }
  }
  try {
    const read = await Promise.race([
      readWith(source, ctx, log, stop.signal, track, { endsAt, pastDeadline }),
      stopped,
    ]);
    if (pastDeadline()) throw new Error("the read ended after the deadline");
    return read;
  } catch (err) {
    // The server as last started: a retried server's stderr is shown once.
    const stdio = transports.findLast((t): t is StdioTransport => t instanceof StdioTransport);
    const exit =
      stdio !== undefined && log.error === undefined && brokenPipe(err)
        ? await stdio.exitAfterBrokenPipe(1000)
        : stdio?.exitStatus;
    const detail = stdio?.stderrTail.lines() ?? [];
    const timedOut = (deadline.aborted || pastDeadline()) && !(ctx.signal?.aborted ?? false);
    const message = timedOut
      ? `timed out after ${ctx.timeoutMs / 1000} s`
      : log.error === undefined && !isContractpinError(err) && exit !== undefined
        ? describeExit(exit, stdio!.hasAnswered)
        : describeError(log.error ?? err, ctx.timeoutMs / 1000, {
            headers: source.transport === "http" && Object.keys(source.headers ?? {}).length > 0,
          });
    // A failure while a list page was being read names it (SPEC.md 8).
    const page = log.listPage;
    const at = page === undefined ? "" : `${page.method} page ${page.page}: `;
    const hint =
      source.transport === "stdio"
        ? ((timedOut && stdio !== undefined
            ? silentRunnerHint(
                stdio.command,
                !stdio.hasAnswered && detail.length === 0,
                ctx.timeoutMs / 1000,
              )
            : undefined) ??
          withheldEnvHint(
            detail,
            ctx.env,
            new Set([...INHERITED_ENV, ...RUNNER_ENV, ...Object.keys(source.env ?? {})]),
          ))
        : undefined;
    failure = Object.assign(
      new ContractpinError("SERVER_UNREADABLE", `${at}${message}${hint ? `; ${hint}` : ""}`, {
        cause: err,
      }),
      {
        detail,
      } satisfies WithDetail,
    );
    throw failure;
  } finally {
    closing = true;
    stop.abort();
    await Promise.all(transports.map((t) => closeTransport(t)));
    // Only once npx has ended: what it left is then final.
    const note = failure !== undefined && npx !== undefined ? await mendNpxFolder(npx) : undefined;
    if (note !== undefined) failure!.message = `${failure!.message}; ${note}`;
  }
}

/**
 * A write to the server's stdin failed, or the library saw the connection
 * close: the process is ending, and its exit is what explains it.
 */
function brokenPipe(err: unknown): boolean {
  for (let e = err, depth = 0; e !== undefined && e !== null && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (code === "EPIPE" || code === "ERR_STREAM_DESTROYED" || code === "CONNECTION_CLOSED")
      return true;
    if (e instanceof Error && e.message === "the server is not running") return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/** When the read of a server must end. */
interface Deadline {
  /** The deadline on the `performance.now()` clock. */
  endsAt: number;
  /** True once it has passed, whether or not its timer could fire yet. */
  pastDeadline: () => boolean;
}

async function readWith(
  source: StdioSource | HttpSource,
  ctx: ReadContext,
  log: RawLog,
  signal: AbortSignal,
  track: <T extends Transport>(t: T) => T,
  deadline: Deadline,
): Promise<ServerRead> {
  const version = packageVersion();
  const authorize =
    source.transport === "http" && ctx.authorizer !== undefined
      ? await ctx.authorizer()
      : undefined;
  let session;
  try {
    session =
      source.transport === "stdio"
        ? await connect(stdioFactory(source, ctx, log, track), version, signal, ctx.timeoutMs, {
            probeTimeoutMs: Math.max(1, Math.min(PROBE_SLICE_MS, Math.floor(ctx.timeoutMs / 2))),
            mayRetry: (t) => !(t instanceof StdioTransport) || t.mayRetryAfterProbe(),
          })
        : await connect(
            httpFactory(source, ctx, log, track, false, deadline.endsAt, authorize),
            version,
            signal,
            ctx.timeoutMs,
          );
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
        httpFactory(source, ctx, log, track, true, deadline.endsAt, authorize),
        version,
        signal,
        ctx.timeoutMs,
      );
    } catch {
      throw err;
    }
  }
  // Over HTTP the tap may finish its copy of the answer after the library.
  await log.awaitResponse("initialize", 1000);
  const tools = advertisesTools(log)
    ? await listTools(
        session.client,
        log,
        signal,
        ctx.timeoutMs,
        deadline.pastDeadline,
        (bytes) => {
          ctx.onToolsListPage?.(bytes);
          ctx.onRawResponse?.("tools/list", bytes);
        },
      )
    : [];
  if (ctx.surface === undefined) return { tools, servesMore: servesMore(log) };
  const surface = await readSurface(session.client, log, ctx, signal, deadline.pastDeadline);
  return { tools, surface };
}

function stdioFactory(
  source: StdioSource,
  ctx: ReadContext,
  log: RawLog,
  track: <T extends Transport>(t: T) => T,
) {
  const spec = stdioSpawnSpec(source, ctx);
  return () => track(new StdioTransport(spec, log));
}

/** Ends a session: DELETE for a Streamable HTTP session, then the transport's own close (which ends a stdio server's process group). */
async function closeTransport(transport: Transport): Promise<void> {
  if (transport instanceof StreamableHTTPClientTransport && transport.sessionId !== undefined) {
    await within(
      transport.terminateSession().catch(() => undefined),
      1000,
    );
  }
  await transport.close().catch(() => undefined);
}
