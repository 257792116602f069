// The small HTTP parts of the guard's listener: error answers, the Accept
// header, and a request body read up to a limit.
import type { IncomingMessage, ServerResponse } from "node:http";

/** An HTTP error with a JSON-RPC error body (id null), as the MCP SDK's servers answer. */
export function reject(
  res: ServerResponse,
  status: number,
  message: string,
  code = -32000,
  done?: () => void,
): void {
  const error = JSON.stringify({ code, message: `contractpin guard: ${message}` });
  res
    .writeHead(status, { "content-type": "application/json" })
    .end(`{"jsonrpc":"2.0","id":null,"error":${error}}`, done);
}

/** True when the Accept header admits `type` (or any type). */
export function accepts(req: IncomingMessage, type: string): boolean {
  const accept = (req.headers.accept ?? "").toLowerCase();
  return accept
    .split(",")
    .map((part) => part.split(";")[0]!.trim())
    .some((t) => t === type || t === "*/*" || t === `${type.split("/")[0]}/*`);
}

/** The body, or undefined once it is over `max` bytes (the rest is not read). */
export function readBody(req: IncomingMessage, max: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const onData = (chunk: Buffer) => {
      total += chunk.length;
      if (total > max) {
        req.off("data", onData);
        req.pause();
        resolve(undefined);
      } else chunks.push(chunk);
    };
    req.on("data", onData);
    req.once("end", () => resolve(Buffer.concat(chunks, total)));
    req.once("error", reject);
  });
}

/**
 * The body as one line for the relay (a stdio server reads a message a
 * line): a line break in strict JSON is whitespace between tokens, so it
 * becomes a space and nothing else changes.
 */
export function oneLine(body: Buffer): Buffer {
  if (body.indexOf(0x0a) === -1 && body.indexOf(0x0d) === -1) return body;
  const copy = Buffer.from(body);
  for (let i = 0; i < copy.length; i++) if (copy[i] === 0x0a || copy[i] === 0x0d) copy[i] = 0x20;
  return copy;
}
