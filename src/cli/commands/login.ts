import { login } from "../../auth/login.js";
import { ContractpinError } from "../../core/errors.js";
import { parseCommandArgs } from "../args.js";
import { authTarget } from "../auth-target.js";
import { LOCK_HELP, LOCK_OPTIONS, warner } from "../common.js";
import { EXIT } from "../exit-code.js";
import type { Io } from "../io.js";

export const help = `Usage: contractpin login NAME [options]
       contractpin login --url URL [options]

Logs in to a remote MCP server that authorizes with OAuth 2.1 (authorization code
with PKCE), so that init, add, update, verify and dump can read it. NAME is an
HTTP server in the lock; --url names a server that is not pinned yet.

The authorization URL is printed (and opened in a browser where one can be: never
under CI, and only an https or loopback http URL); the authorization server sends
the browser back to a listener on 127.0.0.1, whose state contractpin checks. The
client is identified in this order: --client-id (a pre-registered client), then a
client ID metadata document (--client-metadata-url) where the authorization server
supports them, then dynamic client registration. A client registered dynamically
is used again at the next login, on the callback port it registered; when that
port is taken or --callback-port names another, a new client is registered and
stored in its place once the login's tokens are saved (a --client-id client is
never replaced).

The tokens are stored outside the repository, never in the lock or its snapshots:
in the OS keychain (macOS security, or Secret Service through secret-tool) where
one is installed and answers, otherwise in credentials.json (mode 0600, in a 0700
directory) under $XDG_CONFIG_HOME/contractpin or ~/.config/contractpin, with one
warning line when secret-tool is installed but no Secret Service answers
(CONTRACTPIN_CONFIG_DIR overrides the directory;
CONTRACTPIN_CREDENTIAL_STORE=file|keychain|auto chooses). A store that cannot
save, such as a locked keyring, fails the login before the browser is opened.
Each is bound to the server's canonical URL and the authorization server's
issuer: it is never sent to another URL, nor its refresh token to another
authorization server.

login needs a person at a terminal: under CI (CI=true) or without a terminal it
refuses at once. In CI, name a non-interactive flow in the lock (add --url URL
--auth client_credentials or --auth refresh_token: see 'contractpin add --help'),
or send a pre-obtained token as a header that refers to a variable
(--header 'Authorization: Bearer \${TOKEN}'); bind the variable to the server's
origin with verify --allow-env VAR=https://host.

Options:
  --url URL                 the server's URL, instead of NAME
  --client-id ID            a client registered with the authorization server beforehand
  --client-secret-env VAR   the variable that holds that client's secret (never the secret)
  --client-metadata-url URL the https URL of a client ID metadata document
  --scope SCOPE             the scopes to ask for, space-separated, e.g. the ones a
                            server's 403 insufficient_scope named (default: what
                            the server advertises)
  --callback-port PORT      the callback listener's port on 127.0.0.1 (default: the
                            port of the client registered at an earlier login, else
                            a free one)
  --no-browser              print the URL only
  --timeout SECONDS         how long to wait for the login (default 300)
${LOCK_HELP}
  --help                    show this help

Exit codes: 0 logged in; 1 the login failed or was refused; 2 bad arguments, no
terminal or CI, a credential store that cannot be used.

Examples:
  contractpin login search
  contractpin login --url https://mcp.example.com/mcp --scope 'read write'
  contractpin login search --no-browser --callback-port 8765
`;

const OPTIONS = {
  ...LOCK_OPTIONS,
  url: { type: "string" },
  "client-id": { type: "string" },
  "client-secret-env": { type: "string" },
  "client-metadata-url": { type: "string" },
  scope: { type: "string" },
  "callback-port": { type: "string" },
  "no-browser": { type: "boolean" },
  timeout: { type: "string" },
} as const;

export async function run(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommandArgs("login", args, OPTIONS, 1);
  const usage = (m: string) =>
    new ContractpinError("USAGE", `${m} (see 'contractpin login --help')`);
  const port = values["callback-port"] === undefined ? undefined : Number(values["callback-port"]);
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535))
    throw usage("--callback-port takes a port number");
  const seconds = Number(values.timeout ?? "300");
  if (!(seconds > 0) || seconds > 86_400)
    throw usage("--timeout takes a positive number of seconds");
  const secretVar = values["client-secret-env"];
  if (secretVar !== undefined && values["client-id"] === undefined)
    throw usage("--client-secret-env needs --client-id");
  if (secretVar !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(secretVar)) {
    throw usage("--client-secret-env takes the name of a variable, not its value");
  }
  const secret = secretVar === undefined ? undefined : process.env[secretVar];
  if (secretVar !== undefined && !secret) {
    throw new ContractpinError(
      "ENV_UNSET",
      `--client-secret-env names ${secretVar}, which is not set`,
    );
  }
  const { url, shown } = await authTarget("login", positionals[0], values, io);
  const clientId = values["client-id"];
  const result = await login({
    url,
    shown,
    env: process.env,
    ...(port === undefined ? {} : { callbackPort: port }),
    timeoutMs: Math.ceil(seconds * 1000),
    browser: values["no-browser"] !== true,
    say: (line) => io.out(line),
    warn: warner(io),
    ...(io.signal === undefined ? {} : { signal: io.signal }),
    ...(clientId === undefined
      ? {}
      : { client: { clientId, ...(secret === undefined ? {} : { clientSecret: secret }) } }),
    ...(values["client-metadata-url"] === undefined
      ? {}
      : { clientMetadataUrl: values["client-metadata-url"] }),
    ...(values.scope === undefined ? {} : { scope: values.scope }),
  });
  await io.out(
    `logged in to ${shown} (authorization server ${result.issuer}); stored in ${result.where}\n`,
  );
  return EXIT.OK;
}
