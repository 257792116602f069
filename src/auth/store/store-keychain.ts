import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { delimiter, join } from "node:path";
import { ContractpinError } from "../../core/errors.js";
import { parseJson } from "../../core/json/strict-json.js";
import { validEntries, type CredentialStore, type ResourceEntries } from "./store-entry.js";
import { secretServiceStore } from "./store-secret-service.js";

type Env = Readonly<Record<string, string | undefined>>;

/** A keychain tool contractpin can drive, and where it was found. */
export interface KeychainTool {
  name: "secret-tool" | "security";
  path: string;
}

const SERVICE = "contractpin";

/**
 * The keychain tool on PATH (`security` on macOS, else `secret-tool`), or
 * undefined. Being installed does not make it usable: see openStore.
 */
export function keychainTool(env: Env, platform = process.platform): KeychainTool | undefined {
  const name = platform === "darwin" ? "security" : "secret-tool";
  const dirs = (env.PATH ?? "").split(delimiter).filter((d) => d !== "");
  const dir = dirs.find((d) => existsSync(join(d, name)));
  return dir === undefined ? undefined : { name, path: join(dir, name) };
}

/** The OS keychain through `tool`, run with `env`. */
export function keychainStore(tool: KeychainTool, env: Env): CredentialStore {
  return tool.name === "security"
    ? macosKeychainStore(tool.path)
    : secretServiceStore(tool.path, env);
}

/** What macOS `security` is run with for one operation: its arguments, and its stdin. */
export interface SecurityCommand {
  args: string[];
  input: string;
}

/**
 * The `security` command for reading, saving (a non-empty `secret`) or
 * deleting (an empty one) the item of `resource` (service `contractpin`,
 * the resource URL as account). The secret is never an argument: `-w` last
 * makes `security` prompt for it, twice, and the prompts are answered on stdin.
 */
export function securityCommand(
  op: "read" | "write",
  resource: string,
  secret = "",
): SecurityCommand {
  if (op === "read")
    return { args: ["find-generic-password", "-s", SERVICE, "-a", resource, "-w"], input: "" };
  if (secret === "")
    return { args: ["delete-generic-password", "-s", SERVICE, "-a", resource], input: "" };
  return {
    args: ["add-generic-password", "-U", "-s", SERVICE, "-a", resource, "-w"],
    input: `${secret}\n${secret}\n`,
  };
}

/**
 * The password `security` is given for `entries`: their JSON with every
 * character beyond printable ASCII written as a `\u` escape (still the same
 * JSON), since `security find-generic-password -w` prints a password that is
 * not printable ASCII as hex instead of as it is.
 */
export function securitySecret(entries: ResourceEntries): string {
  return JSON.stringify(entries).replace(
    /[^\x20-\x7e]/g,
    (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/**
 * The macOS keychain through `security`: one generic password per resource,
 * whose password is {@link securitySecret} of its entries. Not run by the
 * test suite, which runs on Linux: securityCommand and securitySecret are
 * tested for what they pass.
 */
function macosKeychainStore(path: string): CredentialStore {
  const where = "the macOS keychain";
  const run = ({ args, input }: SecurityCommand) => {
    const r = spawnSync(path, args, { input, encoding: "utf8", timeout: 30_000 });
    if (r.error) {
      throw new ContractpinError(
        "CREDENTIAL_STORE",
        `${where}: cannot run security: ${r.error.message}`,
      );
    }
    return r;
  };
  /**
   * Saves `secret` for `account` and reads it back: `security` given a
   * password it did not take from its prompt (the prompt read elsewhere than
   * stdin, or the two answers differing) is reported to store an empty one
   * and still exit 0, so only the read-back shows that nothing was kept.
   */
  const save = (account: string, secret: string) => {
    const r = run(securityCommand("write", account, secret));
    const back = r.status === 0 ? run(securityCommand("read", account)) : undefined;
    if (back?.status !== 0 || back.stdout.replace(/\n$/, "") !== secret) {
      throw new ContractpinError(
        "CREDENTIAL_STORE",
        `${where}: the credential was not saved (security exited with ${r.status ?? r.signal}` +
          `${r.status === 0 ? ", and read back something else" : ""}); ` +
          "set CONTRACTPIN_CREDENTIAL_STORE=file to use the credentials file",
      );
    }
  };
  return {
    where,
    async read(resource) {
      const r = run(securityCommand("read", resource));
      // `security` exits non-zero, printing nothing, for an item that does not exist.
      if (r.status !== 0) return {};
      try {
        return validEntries(parseJson(r.stdout.trim()), where);
      } catch (cause) {
        throw new ContractpinError(
          "CREDENTIAL_STORE",
          `${where} holds an entry contractpin cannot read`,
          { cause },
        );
      }
    },
    async write(resource, entries) {
      // Deleting what is not there is not a failure.
      if (Object.keys(entries).length === 0) run(securityCommand("write", resource));
      else save(resource, securitySecret(entries));
    },
    async ready() {
      // A save that would not be kept is found before login sends anyone to the browser.
      const probe = "contractpin write check";
      save(probe, "write check");
      run(securityCommand("write", probe));
    },
  };
}
