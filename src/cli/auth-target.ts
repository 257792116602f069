import { ContractpinError } from "../core/errors.js";
import { expandReferences } from "../core/source/server-source.js";
import { readLock } from "../io/lock-file.js";
import type { Io } from "./io.js";
import { knownServers, lockPath } from "./common.js";
import { displayName } from "./render/style.js";

/**
 * The MCP server a `login` or `logout` is about: NAME, an HTTP server of the
 * lock (its URL's references expanded from the environment), or `--url URL`.
 *
 * @throws ContractpinError USAGE for neither or both, or a server that is not
 *   reached over HTTP; the lock's own errors.
 */
export async function authTarget(
  command: string,
  name: string | undefined,
  values: { url?: string | undefined; lock?: string | undefined },
  io: Pick<Io, "err">,
): Promise<{ url: URL; shown: string }> {
  const hint = ` (see 'contractpin ${command} --help')`;
  if ((name === undefined) === (values.url === undefined)) {
    throw new ContractpinError(
      "USAGE",
      `${command} takes a server NAME from the lock or --url URL${hint}`,
    );
  }
  let text: string;
  let shown: string;
  if (name !== undefined) {
    const lockFile = await lockPath(values, io);
    const lock = await readLock(lockFile);
    knownServers([name], lock.servers, lockFile);
    const server = lock.servers[name]!;
    if (server.transport !== "http") {
      throw new ContractpinError(
        "USAGE",
        `server ${displayName(name)} is a ${server.transport} server: only HTTP servers use OAuth`,
      );
    }
    text = expandReferences(server.url, process.env, "the URL");
    shown = displayName(name);
  } else {
    text = values.url!;
    shown = text;
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ContractpinError("USAGE", `${command} needs a full http(s) URL${hint}`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new ContractpinError("USAGE", `${command} takes an http:// or https:// URL${hint}`);
  }
  return { url, shown: name === undefined ? url.href : shown };
}
