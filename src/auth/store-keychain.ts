import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { delimiter, join } from "node:path";
import { ContractpinError } from "../core/errors.js";
import { parseJson } from "../core/strict-json.js";
import type { CredentialStore } from "./store.js";
import { validEntries } from "./store-entry.js";

/** A keychain tool contractpin can drive, and where it was found. */
export interface KeychainTool {
  name: "secret-tool" | "security";
  path: string;
}

const SERVICE = "contractpin";

/** The keychain tool on PATH (`security` on macOS, else `secret-tool`), or undefined. */
export function keychainTool(
  env: Readonly<Record<string, string | undefined>>,
): KeychainTool | undefined {
  const name = process.platform === "darwin" ? "security" : "secret-tool";
  const dirs = (env.PATH ?? "").split(delimiter).filter((d) => d !== "");
  const dir = dirs.find((d) => existsSync(join(d, name)));
  return dir === undefined ? undefined : { name, path: join(dir, name) };
}

/**
 * The OS keychain: one item per resource (service `contractpin`, the
 * resource URL as account or attribute), whose secret is the JSON of its
 * entries. The secret goes to the tool on stdin, never on its command line
 * (except macOS `security`, which reads it from its prompt: fed on stdin).
 */
export function keychainStore({ name: tool, path }: KeychainTool): CredentialStore {
  const where = tool === "security" ? "the macOS keychain" : "the Secret Service keychain";
  const run = (args: string[], input?: string) => {
    const r = spawnSync(path, args, { input: input ?? "", encoding: "utf8", timeout: 30_000 });
    if (r.error) {
      throw new ContractpinError(
        "CREDENTIAL_STORE",
        `${where}: cannot run ${tool}: ${r.error.message}`,
      );
    }
    return r;
  };
  return {
    where,
    async read(resource) {
      const r =
        tool === "security"
          ? run(["find-generic-password", "-s", SERVICE, "-a", resource, "-w"])
          : run(["lookup", "service", SERVICE, "resource", resource]);
      // Both tools exit non-zero, printing nothing, for an item that does not exist.
      if (r.status !== 0 || r.stdout.trim() === "") return {};
      try {
        return validEntries(parseJson(r.stdout.trim()), where);
      } catch (cause) {
        throw new ContractpinError(
          "CREDENTIAL_STORE",
          `${where} holds an entry contractpin cannot read`,
          {
            cause,
          },
        );
      }
    },
    async write(resource, entries) {
      const secret = JSON.stringify(entries);
      const empty = Object.keys(entries).length === 0;
      const r =
        tool === "security"
          ? empty
            ? run(["delete-generic-password", "-s", SERVICE, "-a", resource])
            : run(
                ["add-generic-password", "-U", "-s", SERVICE, "-a", resource, "-w"],
                `${secret}\n${secret}\n`,
              )
          : empty
            ? run(["clear", "service", SERVICE, "resource", resource])
            : run(
                [
                  "store",
                  `--label=contractpin ${resource}`,
                  "service",
                  SERVICE,
                  "resource",
                  resource,
                ],
                secret,
              );
      // Clearing what is not there is not a failure.
      if (r.status !== 0 && !empty) {
        throw new ContractpinError(
          "CREDENTIAL_STORE",
          `${where}: the credential was not saved (${tool} exited with ${r.status ?? r.signal})`,
        );
      }
    },
  };
}
