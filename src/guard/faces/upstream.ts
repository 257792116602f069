import type { FetchLike } from "@modelcontextprotocol/client";
import { isContractpinError } from "../../core/errors.js";
import { runsGuard } from "../../core/source/guard-command.js";
import type { Redact } from "../../core/source/redact.js";
import { guardSecrets } from "../../core/source/server-secrets.js";
import { httpTarget } from "../../sources/live/http-target.js";
import { sameOriginFetch } from "../../sources/live/same-origin-fetch.js";
import { stdioSpawnSpec } from "../../sources/live/spawn-spec.js";
import { StdioTransport, type LineSink } from "../../sources/live/stdio-transport.js";
import type { ExitStatus } from "../../sources/live/spawn-server.js";
import { discardEarlyServer, takeEarlyServer } from "./early-server.js";
import type { ReadContext } from "../../sources/read-tools.js";
import { runsRecorded } from "../../core/source/artifact.js";
import type { LockState } from "../policy/lock-state.js";
import type { Upstream } from "../relay.js";

/** Exit codes of a guard session. */
export const OK = 0;
export const SERVER_FAILED = 1;
export const CANNOT_RUN = 2;

/** A running connection to the guarded server. */
export type OpenUpstream = Upstream & { close(): Promise<void> };

/** What the guard's upstream reports to the session that owns it. */
export interface UpstreamHooks {
  server: string;
  ctx: ReadContext;
  /** One line on stderr (the caller redacts and sanitises it). */
  say(message: string): void;
  /** One raw stderr line of the server (its tail), already redacted by the caller. */
  tail(line: string): void;
  /** The redaction of this server's expanded `${VAR}` values, once known. */
  setRedact(redact: Redact): void;
  /** One message (or batch) from the server, its exact bytes. */
  message(bytes: Uint8Array | string): void;
  /** The session cannot go on: `message` for stderr and the client, `code` the exit code. */
  fail(message: string, code: number): void;
  /** The server is gone after a failure, its processes ended. */
  ended(code: number): void;
}

/**
 * Starts (stdio) or connects to (HTTP) the server the lock pins, as verify
 * does. When that cannot be done (an unreadable lock, a server not in it, a
 * variable that is not set, a command that cannot be started), `hooks.fail`
 * says why and the result is undefined: the session answers errors.
 */
export async function openUpstream(
  lock: LockState,
  hooks: UpstreamHooks,
): Promise<OpenUpstream | undefined> {
  try {
    return await openPinned(lock, hooks);
  } finally {
    // A server the launcher started that openPinned did not take (its lock
    // cannot be read, or names something else now) ends here, not with the guard.
    discardEarlyServer();
  }
}

async function openPinned(
  lock: LockState,
  hooks: UpstreamHooks,
): Promise<OpenUpstream | undefined> {
  const { server, ctx } = hooks;
  try {
    // A stdio server is started as soon as the lock is strictly parsed and
    // its entry's source is valid, and the whole lock is validated while it
    // starts, before anything it sends is read (a client waits for its start:
    // docs/guard.md#start-up). Anything else takes the path below.
    const early = lock.startable();
    if (early?.transport === "stdio" && !runsGuard(early)) {
      const spec = spawnSpecOrUndefined(early, ctx);
      if (spec !== undefined) {
        hooks.setRedact(guardSecrets(server, early, ctx).redact);
        return await openStdio(spec, hooks, () => lock.validatedAsStarted());
      }
    }
    const pinned = await lock.current();
    if (pinned.transport === "file") {
      hooks.fail(
        `server ${server} is pinned from a file (transport file): there is no server to guard`,
        CANNOT_RUN,
      );
      return undefined;
    }
    if (runsGuard(pinned)) {
      // A lock that pinned a wrapped entry (or a guard by hand): started, it would start itself.
      hooks.fail(
        `server ${server}: the lock pins a contractpin guard as the server, and a guard never starts a guard; re-pin the server it guards with 'contractpin init --force' (which reads a wrapped entry as the server it wraps)`,
        CANNOT_RUN,
      );
      return undefined;
    }
    hooks.setRedact(guardSecrets(server, pinned, ctx).redact);
    if (pinned.transport === "http") {
      const { url, headers } = httpTarget(pinned, ctx.env);
      const max = ctx.maxMessageBytes;
      // verify's OAuth (a stored login, or the lock's auth member), never a browser.
      // Loaded here, with the MCP client library they use: a stdio server's
      // guard answers its client's first message without them.
      const { readAuth } = await import("../../auth/read-auth.js");
      const { HttpUpstream } = await import("./upstream-http.js");
      const { authorizedFetch } = await import("../../auth/authorized-fetch.js");
      const auth = readAuth(pinned, url, { ...ctx, server });
      const fetch =
        auth === undefined
          ? sameOriginFetch()
          : failClosed(authorizedFetch(auth, sameOriginFetch()), (text) =>
              hooks.fail(`server ${server}: ${text}`, SERVER_FAILED),
            );
      const http: OpenUpstream = new HttpUpstream(
        url,
        headers,
        {
          message: hooks.message,
          tooLarge: () => {
            hooks.fail(
              `server ${server}: the server sent a message larger than ${max} bytes`,
              SERVER_FAILED,
            );
            void http.close().then(() => hooks.ended(SERVER_FAILED));
          },
          warn: (text) => hooks.say(`server ${server}: ${text}`),
        },
        max,
        fetch,
      );
      return http;
    }
    // An image whose artifact the lock records runs by its digest (SPEC.md 11.4).
    return await openStdio(stdioSpawnSpec(runsRecorded(pinned), ctx), hooks);
  } catch (err) {
    // The lock, or a ${VAR} of the server: contractpin's side could not run it.
    hooks.fail(message(err), failureCode(err));
    return undefined;
  }
}

/** The exit code of what kept the guard from starting the server. */
function failureCode(err: unknown): number {
  return isContractpinError(err, "ENV_UNSET") || isContractpinError(err, "SOURCE_INVALID")
    ? SERVER_FAILED
    : CANNOT_RUN;
}

/** The spawn spec, or undefined when it cannot be made (the path after validation says why). */
function spawnSpecOrUndefined(
  source: Parameters<typeof stdioSpawnSpec>[0],
  ctx: ReadContext,
): ReturnType<typeof stdioSpawnSpec> | undefined {
  try {
    return stdioSpawnSpec(source, ctx);
  } catch {
    return undefined;
  }
}

/**
 * Starts a stdio server. `validate`, when given, runs at once after the
 * process is spawned, before anything it sends is read: when it throws, the
 * session fails with its error, as when the lock cannot be read, nothing the
 * server sent is used, and its process group is ended.
 */
async function openStdio(
  spec: ReturnType<typeof stdioSpawnSpec>,
  hooks: UpstreamHooks,
  validate?: () => void,
): Promise<OpenUpstream | undefined> {
  const { server, ctx } = hooks;
  let started = false;
  let closing = false;
  let failed = false;
  let refused = false;
  const fail = (text: string, code: number) => {
    failed = true;
    hooks.fail(text, code);
  };
  const sink: LineSink = {
    maxMessageBytes: ctx.maxMessageBytes,
    receivedLine: (line) => {
      if (!refused) hooks.message(line);
      return undefined;
    },
    failTooLarge: () => {
      const err = new Error(`the server sent a message larger than ${ctx.maxMessageBytes} bytes`);
      fail(`server ${server}: ${err.message}`, SERVER_FAILED);
      void t.close().then(() => hooks.ended(SERVER_FAILED));
      return err;
    },
    sent: () => undefined,
  };
  // The process the launcher started for this very spec, if it did (src/cli/early-start.ts).
  const t = new StdioTransport(spec, sink, takeEarlyServer(spec));
  t.onclose = () => {
    // Before start() settled: a command that could not be started, said there.
    if (failed || closing || !started) return;
    const status = t.exitStatus;
    const why =
      status === undefined ? "the server's pipes closed" : describeExit(status, t.hasAnswered);
    const tail = t.stderrTail.lines();
    fail(`server ${server} ended: ${why}`, SERVER_FAILED);
    for (const line of tail) hooks.tail(line);
    // Wait for its process group to be gone, then end.
    void t.close().then(() => hooks.ended(SERVER_FAILED));
  };
  const starting = t.start();
  if (validate !== undefined) {
    try {
      validate();
    } catch (err) {
      refused = true;
      fail(message(err), failureCode(err));
      await starting.catch(() => undefined);
      await t.close();
      return undefined;
    }
  }
  try {
    await starting;
  } catch (err) {
    fail(
      `server ${server}: could not start ${JSON.stringify(spec.command)}: ${message(err)}`,
      SERVER_FAILED,
    );
    return undefined;
  }
  started = true;
  return {
    sendRaw: (bytes) => t.sendRaw(bytes),
    close: () => {
      closing = true;
      return t.close();
    },
  };
}

/**
 * `fetch`, with an authorization that cannot be had (a login to run, a
 * refused token or scope) ending the session's trust in the server: `fail`
 * says it once (stderr and every pending and later request), and the
 * request fails. The guard never relays without the credential.
 */
function failClosed(fetch: FetchLike, fail: (message: string) => void): FetchLike {
  let failed = false;
  return async (url, init) => {
    try {
      return await fetch(url, init);
    } catch (err) {
      if (isContractpinError(err, "AUTH_REQUIRED", "AUTH_FAILED", "CREDENTIAL_STORE") && !failed) {
        failed = true;
        fail(err.message);
      }
      throw err;
    }
  };
}

/** How a server ended on its own (as verify words it; the guard does not load the MCP client library). */
function describeExit(status: ExitStatus, answered: boolean): string {
  const how =
    status.signal !== null ? `was killed by ${status.signal}` : `exited with code ${status.code}`;
  return answered ? `it ${how}` : `it ${how} before answering`;
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
