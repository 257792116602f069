import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import { ContractpinError } from "../../core/errors.js";
import { parseJson } from "../../core/json/strict-json.js";
import { visibleText } from "../../core/visible-text.js";
import { validEntries, type CredentialStore } from "./store-entry.js";

type Env = Readonly<Record<string, string | undefined>>;

const SERVICE = "contractpin";
const WHERE = "the Secret Service keychain";

// A lookup or a store may wait for a person to unlock the keyring at an
// unlock prompt on a desktop; nothing waits longer than this.
const TIMEOUT_MS = 30_000;
// A search never prompts (no --unlock), so a reachable service answers at
// once: a probe that takes longer means a bus that does not answer.
const PROBE_TIMEOUT_MS = 5_000;

// How to use the file instead, for every message that says the keychain cannot be used.
export const USE_FILE = "set CONTRACTPIN_CREDENTIAL_STORE=file to use the credentials file";

/** Runs secret-tool with `env` (its DBUS_SESSION_BUS_ADDRESS names the bus); the secret, if any, on stdin. */
function run(
  path: string,
  env: Env,
  args: string[],
  input = "",
  timeout = TIMEOUT_MS,
): SpawnSyncReturns<string> {
  return spawnSync(path, args, {
    input,
    encoding: "utf8",
    timeout,
    env: Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined)),
  });
}

/**
 * Why a run failed, in one line: secret-tool's first stderr line (a D-Bus or
 * keyring error: never a secret, which only ever goes to its stdin), or how
 * it ended.
 */
function failure(r: SpawnSyncReturns<string>, timeout = TIMEOUT_MS): string {
  if ((r.error as NodeJS.ErrnoException | undefined)?.code === "ETIMEDOUT")
    return `secret-tool did not answer within ${timeout / 1000} s (waiting for the keyring to be unlocked?)`;
  if (r.error) return `cannot run secret-tool: ${r.error.message}`;
  const line = (r.stderr ?? "").split("\n").find((l) => l.trim() !== "");
  if (line !== undefined) return visibleText(line.trim().slice(0, 300));
  return `secret-tool exited with ${r.status ?? r.signal}`;
}

const said = (r: SpawnSyncReturns<string>) => !r.error && (r.stderr ?? "").trim() !== "";

/**
 * Why the Secret Service cannot be used through the secret-tool at `path`,
 * or undefined when it answers: no session bus, a bus that does not answer,
 * or a bus on which no Secret Service runs (or can be started). A search
 * that matches nothing is asked, which never prompts.
 */
export function secretServiceProblem(path: string, env: Env): string | undefined {
  const r = run(
    path,
    env,
    ["search", "service", SERVICE, "probe", "reachable"],
    "",
    PROBE_TIMEOUT_MS,
  );
  return r.status === 0 && !r.error ? undefined : failure(r, PROBE_TIMEOUT_MS);
}

/**
 * The Secret Service through `secret-tool`: one item per resource
 * (attributes `service contractpin` and `resource URL`), whose secret is the
 * JSON of its entries, given on secret-tool's stdin, never on its command
 * line. A lookup that finds nothing tells neither a missing item nor one in
 * a locked keyring (secret-tool prints nothing for both), so a search, which
 * sees locked items without unlocking them, tells them apart: a locked item
 * is an error, never "no credential".
 */
export function secretServiceStore(path: string, env: Env): CredentialStore {
  const tool = (args: string[], input?: string) => run(path, env, args, input);
  const attributes = (resource: string) => ["service", SERVICE, "resource", resource];
  const fail = (what: string, r: SpawnSyncReturns<string>, fix = USE_FILE) =>
    new ContractpinError("CREDENTIAL_STORE", `${WHERE}: ${what} (${failure(r)}); ${fix}`);
  /** Whether an item for `resource` is there, locked or not. */
  const present = (resource: string): boolean => {
    const r = tool(["search", "--all", ...attributes(resource)]);
    if (r.status !== 0 || r.error) throw fail("cannot search the keyring", r);
    return r.stdout.trim() !== "";
  };
  const locked = (resource: string) =>
    new ContractpinError(
      "CREDENTIAL_STORE",
      `${WHERE}: the credential for ${resource} is in a locked keyring; unlock it (or log in ` +
        `to the desktop session), or ${USE_FILE}`,
    );
  return {
    where: WHERE,
    async read(resource) {
      const r = tool(["lookup", ...attributes(resource)]);
      if (r.status !== 0 || r.error) {
        if (said(r) || r.error) throw fail("cannot read the keyring", r);
        if (present(resource)) throw locked(resource);
        return {};
      }
      // An item holds the JSON contractpin wrote; anything else (an empty
      // secret included) is a corrupt item, never an empty credential.
      try {
        return validEntries(parseJson(r.stdout.trim()), WHERE);
      } catch (cause) {
        throw new ContractpinError(
          "CREDENTIAL_STORE",
          `${WHERE} holds an item for ${resource} that contractpin cannot read; ` +
            `'contractpin logout' removes it`,
          { cause },
        );
      }
    },
    async write(resource, entries) {
      if (Object.keys(entries).length > 0) {
        const r = tool(
          ["store", `--label=contractpin ${resource}`, ...attributes(resource)],
          JSON.stringify(entries),
        );
        if (r.status !== 0 || r.error) throw fail("the credential was not saved", r);
        return;
      }
      const r = tool(["clear", ...attributes(resource)]);
      // secret-tool clear exits 1, silently, both when there was nothing to
      // remove and when the item is locked: only the latter is a failure.
      if ((r.status !== 0 || r.error) && (said(r) || r.error || present(resource)))
        throw fail("the credential was not removed", r, `unlock the keyring, or ${USE_FILE}`);
    },
    async ready() {
      // Saves and removes an item of its own, so that a keyring that cannot
      // save (locked, or without a default collection) is found before
      // login sends the person to the browser, not after the tokens came.
      const probe = ["service", SERVICE, "probe", "write"];
      const r = tool(["store", "--label=contractpin (write check)", ...probe], "write check");
      if (r.status !== 0 || r.error)
        throw fail(
          "cannot save a credential",
          r,
          `unlock the keyring (or create a default one), or ${USE_FILE}`,
        );
      tool(["clear", ...probe]);
    },
  };
}
