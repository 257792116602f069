import { resourceUrlFromServerUrl } from "@modelcontextprotocol/client";
import { openStore } from "../../auth/store/store.js";
import { isContractpinError } from "../../core/errors.js";
import { parseCommandArgs } from "../args.js";
import { authTarget } from "../auth-target.js";
import { LOCK_HELP, LOCK_OPTIONS, warner } from "../common.js";
import { EXIT } from "../exit-code.js";
import type { Io } from "../io.js";

export const help = `Usage: contractpin logout NAME [options]
       contractpin logout --url URL [options]

Deletes the OAuth credential stored for a server (its tokens and client
registration, for every authorization server) by 'contractpin login'. It does
not revoke the tokens at the authorization server.

Options:
  --url URL            the server's URL, instead of NAME (an HTTP server in the lock)
${LOCK_HELP}
  --help               show this help

Exit codes: 0 removed, or nothing was stored; 2 bad arguments, a credential store
that cannot be used.

Examples:
  contractpin logout search
  contractpin logout --url https://mcp.example.com/mcp
`;

export async function run(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    "logout",
    args,
    { ...LOCK_OPTIONS, url: { type: "string" } },
    1,
  );
  const { url, shown } = await authTarget("logout", positionals[0], values, io);
  const store = openStore(process.env, warner(io));
  const resource = resourceUrlFromServerUrl(url).href;
  let count: number;
  try {
    count = Object.keys(await store.read(resource)).length;
  } catch (err) {
    // What cannot be read (a corrupt item) can still be removed, and must be
    // removable; a store that cannot be used at all fails the removal below.
    if (!isContractpinError(err) || err.code !== "CREDENTIAL_STORE") throw err;
    count = 1;
  }
  if (count === 0) {
    await io.out(`no credential is stored for ${shown}\n`);
    return EXIT.OK;
  }
  await store.write(resource, {});
  await io.out(`removed the credential of ${shown} from ${store.where}\n`);
  return EXIT.OK;
}
