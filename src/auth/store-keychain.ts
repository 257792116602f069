import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { delimiter, join } from "node:path";
import { ContractpinError } from "../core/errors.js";
import { parseJson } from "../core/strict-json.js";
import type { CredentialStore } from "./store.js";
import { validEntries } from "./store-entry.js";
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
 * The macOS keychain through `security`: one generic password per resource,
 * whose password is the JSON of its entries. Not run by the test suite, which
 * runs on Linux: securityCommand is tested for what it passes.
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
      const empty = Object.keys(entries).length === 0;
      const r = run(securityCommand("write", resource, empty ? "" : JSON.stringify(entries)));
      // Deleting what is not there is not a failure.
      if (r.status !== 0 && !empty) {
        throw new ContractpinError(
          "CREDENTIAL_STORE",
          `${where}: the credential was not saved (security exited with ${r.status ?? r.signal})`,
        );
      }
    },
    // The login keychain is unlocked with the macOS session, and `security`
    // fails at once when it cannot save: nothing to find out ahead.
    async ready() {},
  };
}
