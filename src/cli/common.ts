import { dirname, resolve } from "node:path";
import { ContractpinError } from "../core/errors.js";
import { DEFAULT_MAX_MESSAGE_BYTES } from "../core/limits.js";
import type { ReadContext } from "../sources/read-tools.js";
import type { Io } from "./io.js";
import { progress, type Progress } from "./render/progress.js";
import { displayName, sanitizeLine } from "./render/style.js";
import type { ServerSource } from "../core/source/server-source.js";
import { findLock, LOCK_NAME } from "../io/find-lock.js";

/** Options every lock command takes. */
export const LOCK_OPTIONS = {
  lock: { type: "string" },
} as const;

/**
 * The lock file a command uses: --lock when given, else the nearest
 * contractpin.lock from the current directory up to the repository root
 * (findLock). A lock found above the current directory is named on stderr,
 * so that nobody verifies another lock than they think.
 */
export async function lockPath(
  values: { lock?: string | undefined },
  io: Pick<Io, "err">,
): Promise<string> {
  if (values.lock !== undefined) return values.lock;
  const found = findLock(process.cwd());
  if (found !== LOCK_NAME) await io.err(`contractpin: using the lock ${found}\n`);
  return found;
}

/** The option of the commands that pin (init, add, update). */
export const SNAPSHOT_OPTIONS = {
  "no-snapshot": { type: "boolean" },
} as const;

export const SNAPSHOT_HELP = `  --no-snapshot        do not write the pinned contracts to the snapshots file beside
                       the lock (contractpin.contracts.json for contractpin.lock),
                       which lets verify show what changed`;

/** The options of the commands that pin (init, add, update): how much of a server is pinned. */
export const SURFACE_OPTIONS = {
  "tools-only": { type: "boolean" },
  resources: { type: "boolean" },
} as const;

export const SURFACE_HELP = `  --tools-only         pin only the tools (a lock that pins only tools is a version 1
                       lock); by default a server's instructions, prompts and resource
                       templates are pinned too
  --resources          pin the resources a server lists too (recorded in the lock, so
                       update keeps pinning them); off by default, since most servers
                       list data that changes legitimately`;

export const ARTIFACT_OPTIONS = {
  artifacts: { type: "boolean" },
} as const;

export const ARTIFACT_HELP = `  --artifacts          also record what the registry serves for an exactly pinned
                       package (npm's integrity, a Python index's file hashes, an
                       image tag's manifest digest; recorded in the lock, so update
                       keeps recording it, and verify asks the registry again)`;

/**
 * What of a server --tools-only and --resources ask to pin, as a read's
 * `surface`: undefined for tools only. Both together is USAGE.
 */
export function surfaceRequest(values: {
  "tools-only"?: boolean;
  resources?: boolean;
}): { resources: boolean } | undefined {
  if (values["tools-only"] === true && values.resources === true) {
    throw new ContractpinError("USAGE", "--tools-only and --resources contradict each other");
  }
  return values["tools-only"] === true ? undefined : { resources: values.resources === true };
}

/** The most reads --repeat asks of each server. */
const MAX_REPEAT = 10;

/** The option of the commands that pin (init, add, update): how many times each server is read. */
export const REPEAT_OPTIONS = {
  repeat: { type: "string", default: "1" },
} as const;

export const REPEAT_HELP = `  --repeat N           read each server N times, one read after another (default 1, at
                       most ${MAX_REPEAT}), and pin it only if its tools are the same every
                       time; a server whose tools change (a timestamp, a random id, a
                       session URL) is not pinned, and the tools and fields that
                       changed are named (exit 1)`;

/** Parses --repeat: a whole number from 1 to MAX_REPEAT (default 1); anything else is USAGE. */
export function repeatCount(values: { repeat?: string }): number {
  const given = values.repeat ?? "1";
  const repeat = Number(given);
  if (!/^[0-9]+$/.test(given) || repeat < 1 || repeat > MAX_REPEAT) {
    throw new ContractpinError(
      "USAGE",
      `--repeat takes a whole number from 1 to ${MAX_REPEAT}, not '${given}'`,
    );
  }
  return repeat;
}

const MIB = 1024 * 1024;
/**
 * The highest --max-message-mib: a message is held several times over while it
 * is read (raw bytes, the library's parse, the strict parse), and as one
 * JavaScript string it must stay under V8's 512 Mi characters.
 */
const MAX_MESSAGE_MIB = 256;

/** Options of the commands that read servers. */
export const READ_OPTIONS = {
  timeout: { type: "string", default: "30" },
  concurrency: { type: "string", default: "16" },
  "max-message-mib": { type: "string", default: String(DEFAULT_MAX_MESSAGE_BYTES / MIB) },
  "oauth-state-out": { type: "string" },
} as const;

export const LOCK_HELP = `  --lock PATH          the lock file (default: contractpin.lock in the current directory,
                       or the nearest one above it within the git repository);
                       relative paths in it resolve against its directory`;
export const READ_HELP = `  --timeout SECONDS    give up on a server after this long (default 30; fractions allowed)
  --concurrency N      read at most N servers at once (default 16)
  --max-message-mib N  refuse a server message (an HTTP body, an SSE event, a stdio
                       line) larger than N MiB (default 64, at most ${MAX_MESSAGE_MIB})
  --oauth-state-out FILE  where a refresh token that an authorization server rotates
                       is written (a lock auth member of mode refresh_token), as the
                       dotenv line VAR=value (mode 0600, atomically; store it with
                       'gh secret set -f FILE'); without it such a server fails`;

/** Parses --timeout, --concurrency and --max-message-mib, and the context servers are read in. */
export function readContext(
  lockPath: string,
  values: ReadValues,
  io: Pick<Io, "err" | "signal">,
): { ctx: ReadContext; concurrency: number } {
  const { timeoutMs, concurrency, maxMessageBytes, oauthStateOut } = readLimits(values);
  const ctx: ReadContext = {
    lockDir: dirname(resolve(lockPath)),
    env: process.env,
    timeoutMs,
    maxMessageBytes,
    // Warnings may quote a server's own text: one sanitised line each.
    warn: warner(io),
    // An http server's `auth` member (src/auth), passed into sources/; loaded
    // only when an http server is read, so a file-only verify never loads it.
    authorizer: async () => (await import("../auth/read-authorizer.js")).authorizeRead,
  };
  if (io.signal !== undefined) ctx.signal = io.signal;
  if (oauthStateOut !== undefined) ctx.oauthStateOut = oauthStateOut;
  return { ctx, concurrency };
}

/** The options of {@link READ_OPTIONS} and --concurrency, as given. */
export interface ReadValues {
  timeout?: string;
  concurrency?: string;
  "max-message-mib"?: string;
  "oauth-state-out"?: string;
}

/**
 * The limits of a read, checked: `--timeout`, `--concurrency`,
 * `--max-message-mib` and `--oauth-state-out` (absolute). Pure.
 *
 * @throws ContractpinError USAGE for a value out of range
 */
export function readLimits(values: ReadValues): {
  timeoutMs: number;
  concurrency: number;
  maxMessageBytes: number;
  oauthStateOut?: string;
} {
  const seconds = Number(values.timeout ?? "30");
  // Timers count whole milliseconds, up to 2^31 - 1 (about 24 days).
  if (!(seconds > 0) || !Number.isFinite(seconds) || seconds * 1000 > 2 ** 31 - 1) {
    throw new ContractpinError(
      "USAGE",
      `--timeout takes a positive number of seconds, not '${values.timeout}'`,
    );
  }
  const concurrency = Number(values.concurrency ?? "16");
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new ContractpinError(
      "USAGE",
      `--concurrency takes a whole number of at least 1, not '${values.concurrency}'`,
    );
  }
  const mib = values["max-message-mib"];
  const maxMessageMib = mib === undefined ? DEFAULT_MAX_MESSAGE_BYTES / MIB : Number(mib);
  if (!/^[0-9]+$/.test(mib ?? "1") || maxMessageMib < 1 || maxMessageMib > MAX_MESSAGE_MIB) {
    throw new ContractpinError(
      "USAGE",
      `--max-message-mib takes a whole number from 1 to ${MAX_MESSAGE_MIB}, not '${mib}'`,
    );
  }
  const limits = {
    timeoutMs: Math.ceil(seconds * 1000),
    concurrency,
    maxMessageBytes: maxMessageMib * MIB,
  };
  const stateOut = values["oauth-state-out"];
  if (stateOut === undefined) return limits;
  if (stateOut === "") throw new ContractpinError("USAGE", "--oauth-state-out takes a file path");
  return { ...limits, oauthStateOut: resolve(stateOut) };
}

/** Checks that every named server is in the lock; an unknown name is exit 2. */
export function knownServers(
  names: readonly string[],
  servers: Record<string, unknown>,
  lockPath: string,
): void {
  for (const name of names) {
    if (!Object.hasOwn(servers, name)) {
      const known = Object.keys(servers);
      const list = known.length > 0 ? `; it pins: ${known.join(", ")}` : "; it pins no servers";
      throw new ContractpinError(
        "SERVER_UNKNOWN",
        `no server named '${name}' in ${lockPath}${list}`,
      );
    }
  }
}

/** The warning sink: one sanitised `contractpin: warning: ...` line on stderr per message. */
export function warner(io: Pick<Io, "err">): (message: string) => void {
  return (message) => void io.err(`contractpin: warning: ${sanitizeLine(message)}\n`);
}

/**
 * The live progress of a pin command (add, init, update) over the servers it
 * reads, as verify shows it: on a terminal, one line per server redrawn as
 * each is read; in CI (CI or GITHUB_ACTIONS set), one plain line per server;
 * otherwise (a script's pipe) nothing, and nothing when every server is a
 * dump file, which reads at once.
 */
export function pinProgress(
  servers: readonly { name: string; source: { transport: string } }[],
  io: Pick<Io, "err" | "interactive" | "rows">,
  env: Readonly<Record<string, string | undefined>>,
): Progress | undefined {
  if (!servers.some((s) => s.source.transport !== "file")) return undefined;
  const ci = Boolean(env["CI"]) || env["GITHUB_ACTIONS"] === "true";
  if (!io.interactive && !ci) return undefined;
  return progress(
    servers.map((s) => s.name),
    io,
    (text) => void io.err(text),
  );
}

/**
 * `--artifacts` on a command that pins several servers: each request whose
 * server has an artifact asks for it; each other server is named on stderr
 * with why none is recorded (the pin goes on).
 */
export async function withArtifacts<
  R extends { name: string; source: ServerSource; artifact?: boolean },
>(requests: readonly R[], asked: boolean | undefined, io: Io): Promise<R[]> {
  if (asked !== true) return [...requests];
  const { askArtifacts } = await import("../engine/artifact.js");
  const { requests: out, skipped } = askArtifacts(requests);
  for (const { name, why } of skipped)
    await io.err(
      `contractpin: note: no artifact recorded for ${displayName(name)}: ${sanitizeLine(why)}\n`,
    );
  return out;
}
