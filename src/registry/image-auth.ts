import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { registryFail } from "./fetch-failure.js";
import { getMember, isJsonObject, type JsonObject } from "../core/json/json-value.js";
import { parseJson } from "../core/json/strict-json.js";
import { HUB_CONFIG_KEY, type ImageRef } from "./image-ref.js";

type Env = Readonly<Record<string, string | undefined>>;

/** What the container runner would send a registry, as its configuration holds it. */
export interface ImageCredential {
  /** `user:password`, from `auth` (base64) or `username`/`password`. */
  basic?: string;
  /** An OAuth2 refresh token (`identitytoken`), traded at the token realm. */
  identityToken?: string;
  /** A credential helper (`docker-credential-NAME`) holds the credential: contractpin does not run it. */
  helper?: string;
  /** The file it came from, for messages (a path, never the credential). */
  file?: string;
}

/** The files a runner reads credentials from, in its order, with what each may use. */
interface AuthFile {
  path: string;
  /** containers/image (podman) matches `host/namespace` keys and ignores `credsStore`. */
  podman: boolean;
}

/**
 * docker: `$DOCKER_CONFIG/config.json`, else `~/.docker/config.json`. podman
 * (containers-auth.json(5)): `$REGISTRY_AUTH_FILE`, else
 * `${XDG_RUNTIME_DIR}/containers/auth.json`; then
 * `${XDG_CONFIG_HOME:-~/.config}/containers/auth.json`, then docker's file.
 * `env` and `home` are the server's, not contractpin's.
 */
function authFiles(podman: boolean, env: Env, home: string): AuthFile[] {
  const docker = join(env["DOCKER_CONFIG"] || join(home, ".docker"), "config.json");
  if (!podman) return [{ path: docker, podman: false }];
  const runtime = env["XDG_RUNTIME_DIR"] || `/run/user/${process.getuid?.() ?? 0}`;
  const primary = env["REGISTRY_AUTH_FILE"] || join(runtime, "containers", "auth.json");
  const config = env["XDG_CONFIG_HOME"] || join(home, ".config");
  return [
    { path: primary, podman: true },
    { path: join(config, "containers", "auth.json"), podman: true },
    { path: docker, podman: true },
  ];
}

/**
 * The credential the runner would use for `ref`'s registry, or undefined when
 * its configuration has none (it then asks anonymously, and so does contractpin).
 *
 * @throws ContractpinError REGISTRY_UNREACHABLE for a configuration file that is not JSON.
 */
export function imageCredential(
  ref: ImageRef,
  podman: boolean,
  env: Env,
  home: string,
): ImageCredential | undefined {
  for (const file of authFiles(podman, env, home)) {
    if (!existsSync(file.path)) continue;
    let doc: unknown;
    try {
      doc = parseJson(readFileSync(file.path));
    } catch (err) {
      throw registryFail()(
        `credentials file ${file.path} is not valid JSON (${(err as Error).message})`,
        err,
      );
    }
    if (!isJsonObject(doc)) continue;
    const found = fromFile(doc, ref, file);
    if (found !== undefined) return { ...found, file: file.path };
  }
  return undefined;
}

/** The keys a runner looks a registry up under, most specific first. */
function lookupKeys(ref: ImageRef, podman: boolean): string[] {
  if (!podman) return [ref.domain === "docker.io" ? HUB_CONFIG_KEY : ref.domain];
  const parts = ref.repository.split("/");
  const keys = parts.map((_, i) => `${ref.domain}/${parts.slice(0, parts.length - i).join("/")}`);
  return [...keys, ref.domain];
}

/** A key as written (`https://index.docker.io/v1/`, `http://host:5000`) reduced to what is matched. */
function normalKey(key: string, podman: boolean): string {
  const scheme = /^https?:\/\//.test(key);
  let k = key.replace(/^https?:\/\//, "");
  // docker compares hosts only; containers/image keeps a namespace unless the key has a scheme (legacy form).
  if (!podman || scheme) k = k.replace(/\/.*$/s, "");
  if (podman && k === "index.docker.io") k = "docker.io";
  return k;
}

function fromFile(
  doc: JsonObject,
  ref: ImageRef,
  file: AuthFile,
): Omit<ImageCredential, "file"> | undefined {
  const keys = lookupKeys(ref, file.podman);
  const wanted = keys.map((k) => normalKey(k, file.podman));
  const helpers = getMember(doc, "credHelpers");
  if (isJsonObject(helpers)) {
    for (const key of wanted) {
      const helper = Object.keys(helpers).find((k) => normalKey(k, file.podman) === key);
      const name = helper === undefined ? undefined : getMember(helpers, helper);
      if (typeof name === "string" && name !== "") return { helper: name };
    }
  }
  // docker asks its store for every registry when `credsStore` is set; containers/image does not read it.
  const store = getMember(doc, "credsStore");
  if (!file.podman && typeof store === "string" && store !== "") return { helper: store };
  const auths = getMember(doc, "auths");
  if (!isJsonObject(auths)) return undefined;
  for (const [i, key] of wanted.entries()) {
    const exact = Object.hasOwn(auths, keys[i]!) ? keys[i] : undefined;
    const match = exact ?? Object.keys(auths).find((k) => normalKey(k, file.podman) === key);
    const entry = match === undefined ? undefined : getMember(auths, match);
    if (isJsonObject(entry)) {
      const found = entryCredential(entry);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

function entryCredential(entry: JsonObject): Omit<ImageCredential, "file"> | undefined {
  const str = (key: string) => {
    const v = getMember(entry, key);
    return typeof v === "string" && v !== "" ? v : undefined;
  };
  const identityToken = str("identitytoken");
  const auth = str("auth");
  const decoded = auth === undefined ? undefined : Buffer.from(auth, "base64").toString("utf8");
  const basic =
    decoded !== undefined && decoded.includes(":")
      ? decoded
      : str("username") !== undefined
        ? `${str("username")}:${str("password") ?? ""}`
        : undefined;
  if (basic === undefined && identityToken === undefined) return undefined;
  return {
    ...(basic === undefined ? {} : { basic }),
    ...(identityToken === undefined ? {} : { identityToken }),
  };
}
