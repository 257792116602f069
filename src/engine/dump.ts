import { ContractpinError } from "../core/errors.js";
import { redactor } from "../core/source/redact.js";
import type { ServerSource } from "../core/source/server-source.js";
import { RESOURCES } from "../core/contract/kinds.js";
import { SURFACE_DUMP_MEMBER, SURFACE_DUMP_VERSION } from "../core/surface/dump.js";
import { parseJson } from "../core/json/strict-json.js";
import { isMethodNotFound } from "../core/contract/tools-list.js";
import { readServer, type ReadContext } from "../sources/read-tools.js";
import { guardSecrets } from "../core/source/server-secrets.js";
import { failureLines } from "./failure.js";

/**
 * Reads a live server's tools/list pages and returns them as a dump (with
 * `ctx.surface`, a surface dump: SPEC.md 10.3): a JSON
 * array holding the bytes of each page's JSON-RPC response exactly as the
 * server sent them (after the strict parser accepted them), one per line,
 * ending with a newline. `toolsFromDump` (the `file` transport, `digest`)
 * reads it back to the same tools, so to the same digests.
 *
 * Failures are SERVER_UNREADABLE naming the server, redacted as by
 * readDigests (guardSecrets); `literals` are values given on the command line
 * (a header or env value) that are used but never shown: each appears as its
 * label instead.
 *
 * @throws ContractpinError SERVER_UNREADABLE, or USAGE for a `file` server (already a dump).
 */
export async function readDump(
  name: string,
  source: ServerSource,
  ctx: ReadContext,
  literals: ReadonlyArray<readonly [string, string]> = [],
): Promise<string> {
  if (source.transport === "file") {
    throw new ContractpinError(
      "USAGE",
      `server ${name} is read from a file: it is already a dump: ${source.path}`,
    );
  }
  const hide = redactor(literals);
  const guard = guardSecrets(name, source, { ...ctx, warn: (m) => ctx.warn(hide(m)) });
  const redact = (text: string) => hide(guard.redact(text));
  const pages: Array<Uint8Array | undefined> = [];
  // Surface dumps: every raw response by method, in the order read.
  const raw = new Map<string, Array<Uint8Array | undefined>>();
  try {
    await readServer(source, {
      ...guard.ctx,
      onToolsListPage: (bytes) => pages.push(bytes),
      onRawResponse: (method, bytes) => {
        const list = raw.get(method) ?? [];
        list.push(bytes);
        raw.set(method, list);
      },
    });
    // Section 5's forms hold tools/list results: a server that serves none
    // has nothing in them (a surface dump holds what it answered instead).
    if (ctx.surface === undefined && (pages.length === 0 || notFound(pages[0]))) {
      throw new ContractpinError(
        "SERVER_UNREADABLE",
        `the server ${pages.length === 0 ? "does not advertise tools" : "answered tools/list with -32601 Method not found"}: ` +
          "it has no tools/list pages to dump (--surface dumps what it serves)",
      );
    }
    for (const [method, list] of ctx.surface === undefined
      ? [["tools/list", pages] as const]
      : raw) {
      const batched = list.findIndex((bytes) => bytes === undefined);
      if (batched !== -1) {
        throw new ContractpinError(
          "SERVER_UNREADABLE",
          `the server answered ${method === "initialize" ? "initialize" : `${method} page ${batched + 1}`} inside a JSON-RPC batch, ` +
            "which has no bytes of its own to dump (pin it with 'contractpin add' instead)",
        );
      }
    }
  } catch (err) {
    const { message, detail } = failureLines(err, redact);
    const options = guard.expanded || literals.length > 0 ? {} : { cause: err };
    throw Object.assign(
      new ContractpinError("SERVER_UNREADABLE", `server ${name}: ${message}`, options),
      { detail },
    );
  }
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  const array = (list: Array<Uint8Array | undefined>) =>
    `[\n${list.map((bytes) => decoder.decode(bytes)).join(",\n")}\n]`;
  if (ctx.surface === undefined) return `${array(pages)}\n`;
  // SPEC.md 10.3: the initialize result, then each list read, in the order read.
  const members = [`"${SURFACE_DUMP_MEMBER}": "${SURFACE_DUMP_VERSION}"`];
  members.push(`"initialize": ${decoder.decode(raw.get("initialize")![0])}`);
  for (const [method, list] of raw) {
    if (method !== "initialize") members.push(`${JSON.stringify(method)}: ${array(list)}`);
  }
  // Asked for, but not advertised (so not asked of the server): pinned as null (SPEC.md 10.3).
  if (ctx.surface.resources && !raw.has(RESOURCES.method))
    members.push(`${JSON.stringify(RESOURCES.method)}: null`);
  return `{\n${members.join(",\n")}\n}\n`;
}

function notFound(bytes: Uint8Array | undefined): boolean {
  return bytes !== undefined && isMethodNotFound(parseJson(bytes));
}
