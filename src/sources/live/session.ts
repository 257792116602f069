import { Client, ProtocolError, SdkError, type Transport } from "@modelcontextprotocol/client";
import { ContractpinError } from "../../core/errors.js";
import type { JsonValue } from "../../core/json/json-value.js";
import { isMethodNotFound, itemsPage } from "../../core/contract/tools-list.js";
import type { ReadContext } from "../read-context.js";
import { describeError } from "./describe-error.js";
import type { RawLog } from "./raw-log.js";

/** What contractpin calls itself, and the version it reports, on every connection. */
export const CLIENT_NAME = "contractpin";

/** More pages than any real server serves: a list this long is a loop we did not detect. */
export const MAX_PAGES = 1000;

// Accepts every result untouched: the tools are taken from the RawLog, so the
// library's schema must neither reject nor rewrite anything (MCP-FACTS).
const ANY_RESULT = {
  "~standard": {
    version: 1 as const,
    vendor: "contractpin",
    validate: (value: unknown) => ({ value }),
  },
};

/** How one connection is made. */
export interface ConnectOptions {
  /**
   * How long the server/discover probe may go unanswered before the client
   * falls back to initialize on the same connection (stdio, where a silent
   * pipe means an older server). Default: the whole `timeoutMs`, which over
   * HTTP makes a silent endpoint an outage.
   */
  probeTimeoutMs?: number;
  /**
   * Whether a probe that broke the first connection may be followed by a
   * plain initialize on a fresh one (default: always).
   */
  mayRetry?: (transport: Transport) => boolean | Promise<boolean>;
}

/**
 * A client with a fixed identity: no capabilities and clientInfo
 * `contractpin`, so a server that varies its tools by client capability gives
 * the same list on every run. Version negotiation is 'auto': 2026-07-28
 * through server/discover where the server speaks it, otherwise initialize;
 * `probeTimeoutMs` bounds the probe (default: the request timeout).
 */
export function newClient(version: string, legacyOnly: boolean, probeTimeoutMs?: number): Client {
  const versionNegotiation = legacyOnly
    ? { mode: "legacy" as const }
    : {
        mode: "auto" as const,
        ...(probeTimeoutMs === undefined ? {} : { probe: { timeoutMs: probeTimeoutMs } }),
      };
  return new Client({ name: CLIENT_NAME, version }, { capabilities: {}, versionNegotiation });
}

/**
 * Connects, trying version negotiation first and falling back to a plain
 * initialize on a fresh transport when the probe itself broke the connection
 * (some servers end on a method they do not know) and `mayRetry` allows it.
 */
export async function connect(
  makeTransport: () => Transport,
  version: string,
  signal: AbortSignal,
  timeoutMs: number,
  options: ConnectOptions = {},
): Promise<{ client: Client; transport: Transport }> {
  const transport = makeTransport();
  const client = newClient(version, false, options.probeTimeoutMs);
  try {
    await client.connect(transport, { signal, timeout: timeoutMs });
    return { client, transport };
  } catch (err) {
    // Decided before close(), which ends the process that the decision looks at.
    const again =
      err instanceof SdkError &&
      err.code === "ERA_NEGOTIATION_FAILED" &&
      !signal.aborted &&
      ((await options.mayRetry?.(transport)) ?? true);
    await client.close().catch(() => undefined);
    if (!again || signal.aborted) throw err;
  }
  const retry = makeTransport();
  const legacy = newClient(version, true);
  await legacy.connect(retry, { signal, timeout: timeoutMs });
  return { client: legacy, transport: retry };
}

/**
 * Pages through tools/list to the end and returns every tool exactly as the
 * strict parser read it off the wire (see {@link listPages}); no tools when
 * the server answers that it has no such method. `onPage` receives the raw
 * bytes of each page as it is accepted.
 */
export async function listTools(
  client: Client,
  log: RawLog,
  signal: AbortSignal,
  timeoutMs: number,
  pastDeadline: () => boolean = () => false,
  onPage?: ReadContext["onToolsListPage"],
): Promise<JsonValue[]> {
  const tools = await listPages(
    client,
    log,
    "tools/list",
    "tools",
    signal,
    timeoutMs,
    pastDeadline,
    onPage,
  );
  return tools ?? [];
}

/**
 * Pages through a list method (tools/list, prompts/list, ...) to the end and
 * returns every item of `member` exactly as the strict parser read it off
 * the wire; null when the first page is answered with -32601 Method not
 * found (the server advertises the list but does not serve it: SPEC.md
 * 10.1). Stops with an error, naming the method and the page, on any other
 * error response, a repeated cursor, past MAX_PAGES, or at the server's
 * deadline: when `signal` fires, or when `pastDeadline` says a page was
 * finished too late (a long synchronous parse holds the timer that fires
 * `signal`). `onPage` receives the raw bytes of each page as it is accepted
 * (RawLog.lastBytes), the -32601 answer included. `without` ends the line of
 * an error response: how to pin the server without this list.
 */
export async function listPages(
  client: Client,
  log: RawLog,
  method: string,
  member: string,
  signal: AbortSignal,
  timeoutMs: number,
  pastDeadline: () => boolean = () => false,
  onPage?: (bytes: Uint8Array | undefined) => void,
  without?: string,
): Promise<JsonValue[] | null> {
  const items: JsonValue[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  // A failure this function words names the page itself; any other failure
  // (the connection, the strict parser, the deadline) is named by the read
  // from log.listPage, which stays set until the page is accepted.
  const named = (message: string, cause?: unknown) => {
    log.listPage = undefined;
    return new ContractpinError("SERVER_UNREADABLE", message, { cause });
  };
  for (let page = 1; ; page++) {
    if (page > MAX_PAGES) throw named(`the server's ${method} ran past ${MAX_PAGES} pages`);
    log.listPage = { method, page };
    const params = cursor === undefined ? {} : { cursor };
    try {
      await client.request({ method, params }, ANY_RESULT, { signal, timeout: timeoutMs });
    } catch (err) {
      // The 2026-07-28 codec validates results before our schema runs; the raw
      // response still decides. Any other failure stands.
      const invalid = err instanceof SdkError && err.code === "INVALID_RESULT";
      if (log.error !== undefined) throw log.error;
      if (err instanceof ProtocolError) {
        // The code is the raw response's, as the strict parser read it.
        const raw = await log.awaitResponse(method, 1000);
        if (log.error !== undefined) throw log.error;
        if (page === 1 && isMethodNotFound(raw)) {
          if (pastDeadline()) throw new Error(`${method} page ${page} arrived after the deadline`);
          onPage?.(log.lastBytes(method));
          log.listPage = undefined;
          return null;
        }
        throw named(
          `${method} page ${page}: ${describeError(err, timeoutMs / 1000)}` +
            (without === undefined ? "" : `; ${without}`),
          err,
        );
      }
      if (!invalid || log.lastResponse(method) === undefined) throw err;
    }
    const raw = await log.awaitResponse(method, 1000);
    if (log.error !== undefined) throw log.error;
    if (pastDeadline()) throw new Error(`${method} page ${page} arrived after the deadline`);
    if (raw === undefined) throw new Error(`the ${method} response was not captured`);
    let result;
    try {
      result = itemsPage(raw, member, `${method} page ${page}`, `a ${method} result`);
    } catch (err) {
      log.listPage = undefined;
      throw err;
    }
    onPage?.(log.lastBytes(method));
    log.listPage = undefined;
    for (const item of result.items) items.push(item);
    if (result.nextCursor === undefined) return items;
    if (seen.has(result.nextCursor)) {
      throw named(
        `the server repeated the cursor ${JSON.stringify(result.nextCursor)} on ${method} page ${page}: its pagination never ends`,
      );
    }
    seen.add(result.nextCursor);
    cursor = result.nextCursor;
  }
}
