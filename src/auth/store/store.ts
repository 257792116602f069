import { ContractpinError } from "../../core/errors.js";
import { fileStore } from "./store-file.js";
import { keychainStore, keychainTool } from "./store-keychain.js";
import type { CredentialEntry, CredentialStore, ResourceEntries } from "./store-entry.js";
import { secretServiceProblem, USE_FILE } from "./store-secret-service.js";

export type { CredentialEntry, CredentialStore, ResourceEntries } from "./store-entry.js";

/** One entry by resource and issuer, or undefined. */
export async function readEntry(
  store: CredentialStore,
  resource: string,
  issuer: string,
): Promise<CredentialEntry | undefined> {
  const entries = await store.read(resource);
  return Object.hasOwn(entries, issuer) ? entries[issuer] : undefined;
}

/** The entry whose tokens were saved last: the one a read uses when no issuer is expected. */
export function latestEntry(entries: ResourceEntries): CredentialEntry | undefined {
  return Object.values(entries).sort((a, b) => (b.savedAt ?? 0) - (a.savedAt ?? 0))[0];
}

/** Replaces (or with `undefined`, deletes) one entry, leaving the resource's others as they were. */
export async function writeEntry(
  store: CredentialStore,
  resource: string,
  issuer: string,
  entry: CredentialEntry | undefined,
): Promise<void> {
  const entries = Object.fromEntries(
    Object.entries(await store.read(resource)).filter(([i]) => i !== issuer),
  );
  if (entry !== undefined) entries[issuer] = entry;
  await store.write(resource, entries);
}

// The Secret Service is probed once per process for each bus (the same answer
// for every server a run reads), and its fall-back is announced once.
const probed = new Map<string, string | undefined>();
const announced = new Set<string>();

/**
 * The credential store the environment selects. CONTRACTPIN_CREDENTIAL_STORE
 * chooses: `file` (a JSON file in the config directory), `keychain` (the OS
 * keychain: macOS `security` or Secret Service through `secret-tool`), or
 * `auto` (the default: the keychain where one is usable, otherwise the file).
 * CONTRACTPIN_CONFIG_DIR (set by tests) means `file` unless the store is
 * chosen explicitly, so a test never touches a real keychain.
 *
 * `secret-tool` is often installed where no Secret Service runs (a CI runner,
 * a server without a desktop session): it is asked once, without any prompt,
 * whether the service answers. If not, `auto` uses the file, saying so in
 * one warning line (so that a login's tokens are kept, and later reads in the
 * same place find them there), and `keychain` is an error naming the way to
 * the file.
 *
 * @param warn receives that one warning line.
 * @throws ContractpinError USAGE for another value, CREDENTIAL_STORE for
 *   `keychain` without a keychain tool, or with a Secret Service that does
 *   not answer.
 */
export function openStore(
  env: Readonly<Record<string, string | undefined>>,
  warn: (message: string) => void = () => undefined,
): CredentialStore {
  const chosen =
    env.CONTRACTPIN_CREDENTIAL_STORE ??
    (env.CONTRACTPIN_CONFIG_DIR !== undefined ? "file" : "auto");
  if (chosen === "file") return fileStore(env);
  if (chosen !== "auto" && chosen !== "keychain") {
    throw new ContractpinError(
      "USAGE",
      "CONTRACTPIN_CREDENTIAL_STORE must be file, keychain or auto",
    );
  }
  const tool = keychainTool(env);
  if (tool === undefined) {
    if (chosen === "keychain") {
      throw new ContractpinError(
        "CREDENTIAL_STORE",
        "CONTRACTPIN_CREDENTIAL_STORE=keychain, but neither secret-tool (Secret Service) nor " +
          "security (macOS) is installed",
      );
    }
    return fileStore(env);
  }
  if (tool.name === "secret-tool") {
    const bus = [tool.path, env.DBUS_SESSION_BUS_ADDRESS, env.XDG_RUNTIME_DIR, env.DISPLAY].join(
      "\0",
    );
    if (!probed.has(bus)) probed.set(bus, secretServiceProblem(tool.path, env));
    const problem = probed.get(bus);
    if (problem !== undefined) {
      if (chosen === "keychain") {
        throw new ContractpinError(
          "CREDENTIAL_STORE",
          `CONTRACTPIN_CREDENTIAL_STORE=keychain, but the Secret Service does not answer ` +
            `(${problem}); ${USE_FILE}`,
        );
      }
      const file = fileStore(env);
      if (!announced.has(bus)) {
        announced.add(bus);
        warn(
          `secret-tool is installed, but the Secret Service does not answer (${problem}): ` +
            `using ${file.where} (CONTRACTPIN_CREDENTIAL_STORE=keychain makes this an error)`,
        );
      }
      return file;
    }
  }
  return keychainStore(tool, env);
}
