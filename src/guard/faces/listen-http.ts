import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { ContractpinError } from "../../core/errors.js";
import { getMember, isJsonObject, type JsonValue } from "../../core/json/json-value.js";
import { parseJson } from "../../core/json/strict-json.js";
import { accepts, oneLine, readBody, reject } from "./http-io.js";
import { HttpSession, idKey } from "./http-session.js";
import {
  isLoopbackHost,
  isLoopbackOrigin,
  listenUrl,
  type ListenAddress,
} from "./listen-address.js";
import { LockState } from "../policy/lock-state.js";
import { makeReporter, type Reporter } from "../reporter.js";
import type { GuardOptions } from "../serve.js";

/** How `contractpin guard NAME --listen HOST:PORT` runs. */
export interface ListenRun extends GuardOptions {
  address: ListenAddress;
}

/** The one path the guard serves MCP on. */
const PATH = "/mcp";

/**
 * Serves the guard over Streamable HTTP on `run.address` until contractpin
 * is interrupted (the abort reason is thrown, after every session's server
 * has been ended). One client session at a time: each `initialize` starts a
 * session with its own server; an `initialize` while another session holds
 * a connection open is refused (409). The URL is one line on stderr.
 *
 * @throws ContractpinError USAGE when the address cannot be bound.
 */
export async function runListen(run: ListenRun): Promise<never> {
  const report = makeReporter(run.err, run.logFile);
  const face = new HttpFace(run, report);
  const server = createServer((req, res) => {
    face.handle(req, res).catch((err: unknown) => {
      report.say(`internal error: ${String(err)}`);
      if (!res.headersSent) res.writeHead(500).end();
      else res.end();
    });
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen({ host: run.address.host, port: run.address.port, ipv6Only: true }, resolve);
    });
  } catch (err) {
    report.close();
    const code = (err as NodeJS.ErrnoException).code ?? String(err);
    throw new ContractpinError("USAGE", `--listen: cannot listen on ${run.address.host}: ${code}`);
  }
  const { port } = server.address() as AddressInfo;
  report.say(`listening on ${listenUrl(run.address, port)}`);
  try {
    await new LockState(run.lockPath, run.server).current();
  } catch (err) {
    report.say(`${(err as Error).message}; every request will get this error`);
  }
  const signal = run.ctx.signal;
  await new Promise<void>((resolve) => {
    if (signal === undefined) return;
    if (signal.aborted) resolve();
    signal.addEventListener("abort", () => resolve(), { once: true });
  });
  await face.close();
  server.close();
  server.closeAllConnections();
  report.close();
  throw signal!.reason;
}

/** The request handling of the HTTP face: checks, then the session's relay. */
class HttpFace {
  private session: HttpSession | undefined;
  /** Starting or ending a session, one at a time. */
  private turn: Promise<unknown> = Promise.resolve();
  private closing = false;

  constructor(
    private readonly run: ListenRun,
    private readonly report: Reporter,
  ) {}

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // DNS rebinding: a web page's request carries its own Origin (or Host).
    const origin = req.headers.origin;
    if (origin !== undefined && !isLoopbackOrigin(origin))
      return reject(res, 403, "Forbidden: the Origin is not a loopback origin");
    if (this.run.address.loopback && !isLoopbackHost(req.headers.host ?? ""))
      return reject(res, 403, "Forbidden: the Host is not a loopback host");
    if (new URL(req.url ?? "/", "http://x").pathname !== PATH)
      return reject(res, 404, `Not Found: the guard serves MCP on ${PATH}`);
    if (req.method === "POST") return this.post(req, res);
    if (req.method === "GET") {
      if (!accepts(req, "text/event-stream"))
        return reject(res, 406, "Not Acceptable: a GET must accept text/event-stream");
      const session = this.sessionOf(req, res);
      if (session !== undefined && !session.listen(res))
        reject(res, 409, "Conflict: the session's stream is open already");
      return;
    }
    if (req.method === "DELETE") {
      const session = this.sessionOf(req, res);
      if (session === undefined) return;
      await this.end(session);
      res.writeHead(200).end();
      return;
    }
    res.setHeader("allow", "GET, POST, DELETE");
    reject(res, 405, "Method Not Allowed");
  }

  /** Ends the session, once one being started is up: no server is left running. */
  async close(): Promise<void> {
    this.closing = true;
    await this.turn;
    if (this.session !== undefined) await this.end(this.session);
  }

  private async post(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const type = (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
    if (type !== "application/json")
      return reject(res, 415, "Unsupported Media Type: the body must be application/json");
    const sse = accepts(req, "text/event-stream");
    if (!sse && !accepts(req, "application/json"))
      return reject(res, 406, "Not Acceptable: accept application/json or text/event-stream");
    const max = this.run.ctx.maxMessageBytes;
    const body = await readBody(req, max);
    if (body === undefined) {
      res.setHeader("connection", "close");
      return reject(res, 413, `the message is larger than ${max} bytes`, -32600, () =>
        req.destroy(),
      );
    }
    let message: JsonValue;
    try {
      message = parseJson(body);
    } catch (err) {
      // What the guard would read and what the server would read could differ: nowhere.
      return reject(res, 400, `Parse error: not strict JSON: ${(err as Error).message}`, -32700);
    }
    const members = Array.isArray(message) ? message : [message];
    const methods = members.map((m) => (isJsonObject(m) ? getMember(m, "method") : undefined));
    const requests = members.flatMap((m, i) => {
      const key =
        typeof methods[i] === "string" && isJsonObject(m) ? idKey(getMember(m, "id")) : undefined;
      return key === undefined ? [] : [key];
    });
    if (Array.isArray(message) && methods.includes("initialize"))
      return reject(res, 400, "Invalid Request: initialize cannot be part of a batch", -32600);
    let session: HttpSession | undefined;
    if (methods[0] === "initialize" && !Array.isArray(message)) {
      session = await this.begin(res);
      if (session === undefined) return;
    } else {
      session = this.sessionOf(req, res);
      if (session === undefined) return;
    }
    session.post(oneLine(body), requests, Array.isArray(message), res, sse);
  }

  /** A new session, ending an idle one; undefined (and 409 sent) while another is busy. */
  private begin(res: ServerResponse): Promise<HttpSession | undefined> {
    const next = this.turn.then(async () => {
      const current = this.session;
      if (this.closing) {
        reject(res, 503, "Service Unavailable: the guard is shutting down", -32603);
        return undefined;
      }
      if (current?.busy() === true) {
        reject(
          res,
          409,
          "Conflict: the guard serves one client session at a time, and another is open",
          -32600,
        );
        return undefined;
      }
      if (current !== undefined) await this.end(current);
      const setup = { ...this.run, report: this.report };
      this.session = await HttpSession.start(randomUUID(), setup);
      return this.session;
    });
    this.turn = next.catch(() => undefined);
    return next;
  }

  private async end(session: HttpSession): Promise<void> {
    if (this.session === session) this.session = undefined;
    await session.close();
  }

  /** The session a request names, or undefined with the answer sent (400 or 404). */
  private sessionOf(req: IncomingMessage, res: ServerResponse): HttpSession | undefined {
    const id = req.headers["mcp-session-id"];
    if (id === undefined) {
      reject(res, 400, "Bad Request: the Mcp-Session-Id header is required", -32600);
      return undefined;
    }
    if (this.session === undefined || id !== this.session.id) {
      reject(res, 404, "Session not found", -32001);
      return undefined;
    }
    return this.session;
  }
}
