import { ContractpinError } from "../core/errors.js";
import { parseJson } from "../core/json/strict-json.js";
import type { PackageVersions } from "./registry-types.js";
import { readAtMost } from "../io/read-body.js";
import { SRI } from "../core/source/artifact.js";
import {
  getMember,
  isJsonObject,
  type JsonObject,
  type JsonValue,
} from "../core/json/json-value.js";
import { fetchFailureReason, lookupSignal, registryFail, type Fail } from "./fetch-failure.js";
import { authorizationFor, registryFor, type NpmConfig } from "./npmrc.js";
import { eachPaced, Pace } from "./pace.js";
import { EXACT_VERSION, newestOf } from "./versions.js";

/** The most bytes of a package's metadata read (a popular package's abbreviated document is a few MiB). */
const MAX_METADATA_BYTES = 64 * 1024 * 1024;

/**
 * Asks the registry npm would use for `name` (registryFor, or `registry` when
 * the runner names one) for its versions, with npm's credentials for that
 * registry, the way `npm view` asks: a GET of the abbreviated metadata. A
 * version the registry gives that is not an exact semver version is refused:
 * it would go into a command line.
 *
 * @throws ContractpinError REGISTRY_UNREACHABLE (the registry could not be
 *   reached, answered an error, or sent something that is not package metadata).
 */
export async function npmVersions(
  name: string,
  config: NpmConfig,
  options: { registry?: string; timeoutMs: number; signal?: AbortSignal },
): Promise<PackageVersions> {
  const { registry, value } = await askMetadata(name, config, options, (body, fail, pace) =>
    parseMetadata(body, name, fail, pace),
  );
  return { registry, ...value };
}

/**
 * The `dist.integrity` the registry npm would use serves for `name@version`
 * (SPEC.md 11.2), asked as {@link npmVersions} asks: one SRI hash.
 *
 * @throws ContractpinError REGISTRY_UNREACHABLE, also when the registry lists
 *   no such version or serves no integrity for it (fail closed).
 */
export async function npmIntegrity(
  name: string,
  version: string,
  config: NpmConfig,
  options: { registry?: string; timeoutMs: number; signal?: AbortSignal },
): Promise<{ registry: string; integrity: string }> {
  const { registry, value } = await askMetadata(name, config, options, async (body, fail) => {
    let doc: unknown;
    try {
      doc = parseJson(body);
    } catch (err) {
      throw fail(`sent metadata for ${name} that is not strict JSON (${(err as Error).message})`);
    }
    const versions = isJsonObject(doc as JsonValue)
      ? getMember(doc as JsonObject, "versions")
      : undefined;
    const manifest = isJsonObject(versions) ? getMember(versions, version) : undefined;
    if (!isJsonObject(manifest)) throw fail(`has no version ${version} of ${name}`);
    const dist = getMember(manifest, "dist");
    const integrity = isJsonObject(dist) ? getMember(dist, "integrity") : undefined;
    if (typeof integrity !== "string" || !SRI.test(integrity))
      throw fail(`serves no dist.integrity (one SRI hash) for ${name}@${version}`);
    return integrity;
  });
  return { registry, integrity: value };
}

/**
 * One GET of a package's metadata from the registry npm would use, with
 * npm's credential for it (sent there only), read by `read`.
 */
async function askMetadata<T>(
  name: string,
  config: NpmConfig,
  options: { registry?: string; timeoutMs: number; signal?: AbortSignal },
  read: (body: Uint8Array, fail: Fail, pace: Pace) => Promise<T>,
): Promise<{ registry: string; value: T }> {
  const registry = options.registry ?? registryFor(config, name);
  const base = registry.endsWith("/") ? registry : `${registry}/`;
  const shown = redactUrl(base);
  const fail = registryFail(`registry ${shown}`);
  let url: URL;
  try {
    url = new URL(name.replace("/", "%2f"), base);
  } catch {
    throw fail("not a URL");
  }
  const auth = authorizationFor(config, base);
  const signal = lookupSignal(options);
  try {
    const response = await fetch(url, {
      headers: {
        accept: "application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8",
        ...(auth === undefined ? {} : { authorization: auth }),
      },
      redirect: "follow",
      signal,
    });
    if (response.status === 404) throw fail(`has no package ${name}`);
    if (response.status === 401 || response.status === 403) {
      throw fail(
        `refused ${name} (HTTP ${response.status}); ${auth === undefined ? "no credential for it in npm's configuration" : "the credential in npm's configuration was refused"}`,
      );
    }
    if (!response.ok) throw fail(`answered HTTP ${response.status} for ${name}`);
    const body =
      response.body === null
        ? new Uint8Array()
        : await readAtMost(response.body, MAX_METADATA_BYTES);
    if (body === undefined)
      throw fail(`the metadata of ${name} is over ${MAX_METADATA_BYTES / 1024 / 1024} MiB`);
    // Paced: the deadline and Ctrl-C or SIGTERM stop the parse of whatever the registry sent.
    return { registry: shown, value: await read(body, fail, new Pace(signal)) };
  } catch (err) {
    options.signal?.throwIfAborted();
    if (err instanceof ContractpinError) throw err;
    throw fail(fetchFailureReason(err, options.timeoutMs), err);
  }
}

/**
 * The `latest` tag and the exact versions of a package's metadata, linear in
 * it and paced by `pace`.
 */
export async function parseMetadata(
  body: Uint8Array,
  name: string,
  fail: (why: string) => ContractpinError,
  pace: Pace = new Pace(),
): Promise<{ latest: string; versions: string[] }> {
  let doc: unknown;
  pace.count(body.byteLength);
  try {
    doc = parseJson(body);
  } catch (err) {
    // Through the strict parser, as every JSON byte contractpin reads: a duplicate
    // "latest" or version key must not be read one way here and another by npm.
    throw fail(`sent metadata for ${name} that is not strict JSON (${(err as Error).message})`);
  }
  if (pace.due) await pace.turn();
  const d = doc as { "dist-tags"?: { latest?: unknown }; versions?: unknown };
  const listed = typeof d.versions === "object" && d.versions !== null ? d.versions : {};
  const exact: string[] = [];
  await eachPaced(Object.keys(listed), pace, (v) => {
    pace.count(v.length);
    if (EXACT_VERSION.test(v)) exact.push(v);
  });
  const latest = d["dist-tags"]?.latest;
  if (latest !== undefined) {
    if (typeof latest === "string" && EXACT_VERSION.test(latest) && Object.hasOwn(listed, latest))
      return { latest, versions: exact };
    // The tag is what npx takes; one that names no listed version says the registry is at
    // fault, and which version would run cannot be told: never "newer", never "up to date".
    const named = typeof latest === "string" && EXACT_VERSION.test(latest) ? latest : "a value";
    throw fail(`its 'latest' tag of ${name} names ${named}, which is not a version it lists`);
  }
  // No `latest` tag: npm then takes the newest release.
  const newest = await newestOf(exact, pace);
  if (newest === undefined) throw fail(`lists no version of ${name}`);
  return { latest: newest, versions: exact };
}

/** A registry URL as shown: without a user name or password it may hold. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = "";
    u.password = "";
    u.search = "";
    return u.href;
  } catch {
    return "(not a URL)";
  }
}
