import { createHash } from "node:crypto";
import { isContractpinError } from "../core/errors.js";
import { getMember, isJsonObject } from "../core/json/json-value.js";
import { parseJson } from "../core/json/strict-json.js";
import { readAtMost } from "../io/read-body.js";
import { fetchFailureReason, lookupSignal, type Fail } from "./fetch-failure.js";
import type { ImageCredential } from "./image-auth.js";
import { nextLink, readChallenge } from "./image-headers.js";
import { isLoopback, TAG, type ImageRef } from "./image-ref.js";
import { eachPaced, Pace } from "./pace.js";

/** Tags asked per page (the registry may send fewer, and a `Link` to the rest). */
export const PAGE_SIZE = 100;
/** The most pages followed: a repository with more tags is refused, not cut short. */
const MAX_PAGES = 200;
/** The most bytes of all answers of one look-up together (pages of tags, a token). */
const MAX_TOTAL_BYTES = 16 * 1024 * 1024;

/**
 * Every tag of `ref`'s repository, asked as docker asks its registry: a GET of
 * `/v2/<name>/tags/list`, pages followed through their `Link` header; a 401 is
 * answered as its `WWW-Authenticate` challenge says (a `Bearer` token from the
 * realm, given the credential if there is one; `Basic` with the credential).
 * Credentials and tokens only ever go in request headers, never in a message.
 *
 * @throws ContractpinError REGISTRY_UNREACHABLE, one line naming the registry.
 */
export async function listTags(
  ref: ImageRef,
  credential: ImageCredential | undefined,
  fail: Fail,
  options: { timeoutMs: number; signal?: AbortSignal },
): Promise<string[]> {
  try {
    return await readTags(ref, credential, fail, options);
  } catch (err) {
    // A body cut by the deadline, or a parse stopped by it: one line; an interrupt as itself.
    options.signal?.throwIfAborted();
    if (isContractpinError(err)) throw err;
    throw fail(fetchFailureReason(err, options.timeoutMs), err);
  }
}

async function readTags(
  ref: ImageRef,
  credential: ImageCredential | undefined,
  fail: Fail,
  options: { timeoutMs: number; signal?: AbortSignal },
): Promise<string[]> {
  const session = imageSession(ref, credential, fail, options);
  const tags: string[] = [];
  let url = new URL(`${ref.api}/v2/${ref.repository}/tags/list?n=${PAGE_SIZE}`);
  for (let page = 0; ; page++) {
    if (page === MAX_PAGES) throw fail(`${ref.repository} has over ${MAX_PAGES} pages of tags`);
    const response = await session.get(url, "application/json");
    if (response.status === 404) throw fail(`has no repository ${ref.repository}`);
    session.check(response);
    const doc = await session.readJson(response, "a tag list");
    const list = isJsonObject(doc) ? getMember(doc, "tags") : undefined;
    if (!Array.isArray(list) && list !== null) throw fail(`sent a tag list without tags`);
    await eachPaced(list ?? [], session.pace, (tag) => {
      if (typeof tag === "string" && TAG.test(tag)) tags.push(tag);
    });
    const next = nextLink(response.headers.get("link"), url, session.pace);
    if (next === undefined) return tags;
    if (next.origin !== url.origin) throw fail("sent a next page on another host");
    url = next;
  }
}

/** The manifest media types docker accepts, an index or manifest list first (SPEC.md 11.2). */
export const MANIFEST_ACCEPT = [
  "application/vnd.oci.image.index.v1+json",
  "application/vnd.docker.distribution.manifest.list.v2+json",
  "application/vnd.oci.image.manifest.v1+json",
  "application/vnd.docker.distribution.manifest.v2+json",
].join(", ");

/** The most bytes of a manifest read (the distribution registry refuses over 4 MiB). */
const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;

/**
 * The digest of the manifest `tag` names in `ref`'s repository, as `docker
 * pull` resolves it: a GET of `/v2/<name>/manifests/<tag>` accepting an OCI
 * index, a manifest list or a manifest (MANIFEST_ACCEPT), authorized as
 * {@link listTags} is. The digest is the sha256 of the bytes served; a
 * `Docker-Content-Digest` header that names another sha256 fails closed.
 *
 * @throws ContractpinError REGISTRY_UNREACHABLE, one line naming the registry.
 */
export async function manifestDigest(
  ref: ImageRef,
  tag: string,
  credential: ImageCredential | undefined,
  fail: Fail,
  options: { timeoutMs: number; signal?: AbortSignal },
): Promise<`sha256:${string}`> {
  try {
    const session = imageSession(ref, credential, fail, options);
    const url = new URL(`${ref.api}/v2/${ref.repository}/manifests/${encodeURIComponent(tag)}`);
    const response = await session.get(url, MANIFEST_ACCEPT);
    if (response.status === 404) throw fail(`has no tag ${tag} of ${ref.repository}`);
    session.check(response);
    const bytes =
      response.body === null
        ? new Uint8Array()
        : await readAtMost(response.body, MAX_MANIFEST_BYTES);
    if (bytes === undefined)
      throw fail(
        `sent a manifest of ${ref.repository}:${tag} over ${MAX_MANIFEST_BYTES / 1024 / 1024} MiB`,
      );
    const digest = `sha256:${createHash("sha256").update(bytes).digest("hex")}` as const;
    const named = response.headers.get("docker-content-digest");
    if (named !== null && named.startsWith("sha256:") && named !== digest)
      throw fail(
        `sent a manifest of ${ref.repository}:${tag} whose sha256 is not the Docker-Content-Digest it named`,
      );
    return digest;
  } catch (err) {
    options.signal?.throwIfAborted();
    if (isContractpinError(err)) throw err;
    throw fail(fetchFailureReason(err, options.timeoutMs), err);
  }
}

/** Requests to one repository of an image registry, authorized once as its first 401 asks. */
interface ImageSession {
  /** A GET of `url` accepting `accept`; a 401 is answered once by its challenge. */
  get(url: URL, accept: string): Promise<Response>;
  /** Fails on a redirect (never followed), a refusal or an error status. */
  check(response: Response): void;
  /** A JSON answer through the strict parser, within the look-up's byte budget. */
  readJson(response: Response, what: string): Promise<unknown>;
  pace: Pace;
}

function imageSession(
  ref: ImageRef,
  credential: ImageCredential | undefined,
  fail: Fail,
  options: { timeoutMs: number; signal?: AbortSignal },
): ImageSession {
  const signal = lookupSignal(options);
  // Paced: the deadline and Ctrl-C or SIGTERM stop the parse of whatever the registry sent.
  const pace = new Pace(signal);
  const send = async (url: URL, headers: Record<string, string>, method = "GET", body?: string) => {
    try {
      return await fetch(url, {
        method,
        headers,
        redirect: "manual",
        signal,
        ...(body === undefined ? {} : { body }),
      });
    } catch (err) {
      options.signal?.throwIfAborted();
      throw fail(fetchFailureReason(err, options.timeoutMs), err);
    }
  };
  let budget = MAX_TOTAL_BYTES;
  const readJson = async (response: Response, what: string) => {
    const bytes =
      response.body === null ? new Uint8Array() : await readAtMost(response.body, budget);
    if (bytes === undefined)
      throw fail(`sent ${what} past ${MAX_TOTAL_BYTES / 1024 / 1024} MiB of answers`);
    budget -= bytes.byteLength;
    pace.count(bytes.byteLength);
    let doc: unknown;
    try {
      doc = parseJson(bytes);
    } catch {
      throw fail(`sent ${what} that is not JSON`);
    }
    if (pace.due) await pace.turn();
    return doc;
  };
  let authorization: string | undefined;
  const headers = (accept: string, auth: string | undefined): Record<string, string> => ({
    accept,
    ...(auth === undefined ? {} : { authorization: auth }),
  });

  return {
    pace,
    readJson,
    async get(url, accept) {
      let response = await send(url, headers(accept, authorization));
      if (response.status === 401 && authorization === undefined) {
        await response.body?.cancel();
        authorization = await authorize(response.headers.get("www-authenticate") ?? "");
        response = await send(url, headers(accept, authorization));
      }
      return response;
    },
    check(response) {
      // A redirect is not followed: it could take the credential to another host.
      if (response.status >= 300 && response.status < 400)
        throw fail(
          `answered a redirect (HTTP ${response.status}) for ${ref.repository}, not followed`,
        );
      if (response.status === 401 || response.status === 403) throw fail(refused(response.status));
      if (!response.ok) throw fail(`answered HTTP ${response.status} for ${ref.repository}`);
    },
  };

  function refused(status: number): string {
    const whose = credential?.file === undefined ? "" : ` (${credential.file})`;
    if (credential?.helper !== undefined)
      return `refused ${ref.repository} (HTTP ${status}); its credential is kept by credential helper docker-credential-${credential.helper}${whose}, which contractpin does not run`;
    return credential === undefined
      ? `refused ${ref.repository} (HTTP ${status}); no credential for ${ref.domain} in the runner's configuration`
      : `refused ${ref.repository} (HTTP ${status}); the credential for ${ref.domain}${whose} was refused`;
  }

  /** The Authorization header a 401's challenge asks for. */
  async function authorize(challenge: string): Promise<string> {
    const { scheme, params } = readChallenge(challenge, pace);
    const basic =
      credential?.basic === undefined
        ? undefined
        : `Basic ${Buffer.from(credential.basic, "utf8").toString("base64")}`;
    if (scheme === "basic") {
      if (basic === undefined) throw fail(refused(401));
      return basic;
    }
    if (scheme !== "bearer" || params.realm === undefined)
      throw fail(`asked for an authentication docker does not know (HTTP 401)`);
    let realm: URL;
    try {
      realm = new URL(params.realm);
    } catch {
      throw fail("named a token realm that is not a URL");
    }
    // A credential never goes over plain HTTP to another machine.
    if (realm.protocol !== "https:" && !(realm.protocol === "http:" && isLoopback(realm.host)))
      throw fail(`named a token realm that is not HTTPS (${realm.origin})`);
    const scope = params.scope ?? `repository:${ref.repository}:pull`;
    let response: Response;
    if (credential?.identityToken !== undefined) {
      // docker trades an identity token as an OAuth2 refresh token, by POST.
      const form = new URLSearchParams({
        grant_type: "refresh_token",
        refresh_token: credential.identityToken,
        service: params.service ?? "",
        scope,
        client_id: "docker",
      });
      response = await send(
        realm,
        { "content-type": "application/x-www-form-urlencoded" },
        "POST",
        form.toString(),
      );
    } else {
      if (params.service !== undefined) realm.searchParams.set("service", params.service);
      realm.searchParams.set("scope", scope);
      response = await send(realm, basic === undefined ? {} : { authorization: basic });
    }
    if (response.status === 401 || response.status === 403) throw fail(refused(response.status));
    if (!response.ok) throw fail(`token service answered HTTP ${response.status}`);
    const doc = await readJson(response, "a token");
    const token = isJsonObject(doc)
      ? (getMember(doc, "token") ?? getMember(doc, "access_token"))
      : undefined;
    if (typeof token !== "string" || !/^[\x21-\x7e]+$/.test(token))
      throw fail("token service sent no token");
    return `Bearer ${token}`;
  }
}
