import { ContractpinError } from "../core/errors.js";
import { setMember } from "../core/json/json-value.js";
import { readAtMost } from "../io/read-body.js";
import { fetchFailureReason, lookupSignal, registryFail, type Fail } from "./fetch-failure.js";
import type { LookupOptions, PackageVersions } from "./registry-types.js";
import { netrcAuthorization } from "./netrc.js";
import { Pace } from "./pace.js";
import { redactUrl } from "./npm.js";
import { latestPep440, normalizePep440, normalizeProjectName } from "./pep440.js";
import {
  htmlPageFiles,
  htmlPageVersions,
  isJsonPage,
  jsonPageFiles,
  jsonPageVersions,
  SIMPLE_ACCEPT,
  type PageFile,
} from "./simple-api.js";

/** The most bytes of one project page read (a large project's page is a few MiB). */
const MAX_PAGE_BYTES = 32 * 1024 * 1024;
const MAX_REDIRECTS = 5;

/** The indexes a Python runner would ask for a package, and how it combines their answers. */
export interface IndexPlan {
  /** Simple API base URLs in the order the runner asks them (a URL may carry user:password@). */
  indexes: string[];
  /**
   * `first`: the first index that has the project is the only one used (uv's
   * default `first-index`); `all`: every index, the highest version of any
   * (pip, and uv's `unsafe-best-match`).
   */
  strategy: "first" | "all";
  /** Pre-releases count as the newest (pip's --pre, uv's --prerelease allow). */
  pre?: boolean;
  /** The `.netrc` the runner would read for an index without a credential in its URL, if any. */
  netrc?: string;
}

/** An index URL without its credential, and the Authorization header it carries (or .netrc gives). */
function credentialFor(index: string, netrc?: string): { url: URL; authorization?: string } {
  const url = new URL(index.endsWith("/") ? index : `${index}/`);
  let authorization: string | undefined;
  if (url.username !== "" || url.password !== "") {
    const user = decodeURIComponent(url.username);
    const password = decodeURIComponent(url.password);
    authorization = `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;
  } else if (netrc !== undefined) {
    authorization = netrcAuthorization(netrc, url.hostname);
  }
  url.username = "";
  url.password = "";
  return { url, ...(authorization === undefined ? {} : { authorization }) };
}

/** Reads a project page: its bytes, whether it is PEP 691 JSON, and the look-up's pace. */
type PageReader<T> = (body: Uint8Array, json: boolean, pace: Pace) => Promise<T>;

/** Reads a project page's versions (pythonVersions). */
const readVersions =
  (project: string): PageReader<string[]> =>
  (body, json, pace) =>
    json
      ? jsonPageVersions(body, project, pace)
      : htmlPageVersions(Buffer.from(body).toString("utf8"), project, pace);

/** Reads a project page's files (pythonFiles). */
const readFiles =
  (project: string): PageReader<PageFile[]> =>
  async (body, json, pace) =>
    json
      ? (await jsonPageFiles(body, project, pace)).files
      : htmlPageFiles(Buffer.from(body).toString("utf8"), project, pace);

/** One index's page of `project`, as `read` reads it, or undefined when it has no such project (404). */
async function askIndex<T>(
  index: string,
  project: string,
  netrc: string | undefined,
  options: LookupOptions,
  fail: Fail,
  read: PageReader<T>,
): Promise<T | undefined> {
  let credential: ReturnType<typeof credentialFor>;
  try {
    credential = credentialFor(index, netrc);
  } catch {
    throw fail("has a credential in its URL that is not percent-encoded");
  }
  const { url: base, authorization } = credential;
  let url = new URL(`${encodeURIComponent(normalizeProjectName(project))}/`, base);
  const signal = lookupSignal(options);
  try {
    for (let hop = 0; ; hop++) {
      // The credential goes only to the index's own origin, never to where a redirect points elsewhere.
      const send = authorization !== undefined && url.origin === base.origin;
      const response = await fetch(url, {
        headers: { accept: SIMPLE_ACCEPT, ...(send ? { authorization } : {}) },
        redirect: "manual",
        signal,
      });
      if ([301, 302, 303, 307, 308].includes(response.status)) {
        await response.body?.cancel();
        const location = response.headers.get("location");
        if (location === null) throw fail(`redirected ${project} without a Location`);
        if (hop >= MAX_REDIRECTS)
          throw fail(`redirected ${project} more than ${MAX_REDIRECTS} times`);
        url = new URL(location, url);
        if (url.protocol !== "https:" && url.protocol !== "http:") {
          throw fail(`redirected ${project} to a ${url.protocol} URL`);
        }
        continue;
      }
      if (response.status === 404) {
        await response.body?.cancel();
        return undefined;
      }
      if (response.status === 401 || response.status === 403) {
        await response.body?.cancel();
        throw fail(
          `refused ${project} (HTTP ${response.status}); ${authorization === undefined ? "no credential for it in the index URL or .netrc" : "the credential for it was refused"}`,
        );
      }
      if (!response.ok) {
        await response.body?.cancel();
        throw fail(`answered HTTP ${response.status} for ${project}`);
      }
      const body =
        response.body === null ? new Uint8Array() : await readAtMost(response.body, MAX_PAGE_BYTES);
      if (body === undefined) {
        throw fail(`the page of ${project} is over ${MAX_PAGE_BYTES / 1024 / 1024} MiB`);
      }
      // Paced: the deadline and Ctrl-C or SIGTERM stop the parse of whatever the index sent.
      const pace = new Pace(signal);
      try {
        return await read(body, isJsonPage(response.headers.get("content-type")), pace);
      } catch (err) {
        if (signal.aborted) throw err;
        throw fail(
          `sent a page for ${project} that is not a Simple API page (${(err as Error).message})`,
        );
      }
    }
  } catch (err) {
    options.signal?.throwIfAborted();
    if (err instanceof ContractpinError) throw err;
    throw fail(fetchFailureReason(err, options.timeoutMs), err);
  }
}

/**
 * Asks the indexes of `plan` for `project` through the Simple API (PEP 503
 * HTML, PEP 691 JSON), as the runner would: with `first`, the first index
 * that has the project answers alone; with `all`, every index is asked and
 * their versions merged. `latest` is what pip and uv take for an unpinned
 * requirement: the highest final release (a pre-release only when there is
 * none). An index that cannot be asked fails the lookup (never "up to date").
 *
 * @throws ContractpinError REGISTRY_UNREACHABLE, one line, no credential.
 */
export async function pythonVersions(
  project: string,
  plan: IndexPlan,
  options: LookupOptions,
): Promise<PackageVersions> {
  const shown = plan.indexes.map((i) => redactUrl(i.endsWith("/") ? i : `${i}/`));
  const failAt = (i: number): Fail => registryFail(`index ${shown[i]}`);
  const answers: { index: number; versions: string[] }[] = [];
  for (let i = 0; i < plan.indexes.length; i++) {
    try {
      new URL(plan.indexes[i]!);
    } catch {
      throw failAt(i)("not a URL");
    }
    const versions = await askIndex(
      plan.indexes[i]!,
      project,
      plan.netrc,
      options,
      failAt(i),
      readVersions(project),
    );
    if (versions === undefined) continue;
    answers.push({ index: i, versions });
    if (plan.strategy === "first") break;
  }
  const where = answers.map((a) => shown[a.index]!).join(" ");
  if (answers.length === 0) {
    const where = plan.indexes.length === 1 ? `index ${shown[0]}` : `indexes ${shown.join(" ")}`;
    throw registryFail(where)(`has no package ${project}`);
  }
  const versions = [...new Set(answers.flatMap((a) => a.versions))];
  const latest = await latestPep440(versions, plan.pre === true, new Pace(options.signal));
  if (latest === undefined) {
    throw registryFail(`index ${where}`)(`lists no version of ${project}`);
  }
  return { registry: where, latest, versions };
}

/**
 * The files the indexes of `plan` list for `project` at `version` (SPEC.md
 * 11.2), each with its sha256, asked as {@link pythonVersions} asks: with
 * `first`, the first index that has the project alone; with `all`, every
 * index, their files together. Yanked files count (an exact pin still
 * installs them).
 *
 * @throws ContractpinError REGISTRY_UNREACHABLE, also when no file of that
 *   version is listed, a file is listed without a sha256, or two indexes list
 *   one file name with two hashes (fail closed).
 */
export async function pythonFiles(
  project: string,
  version: string,
  plan: IndexPlan,
  options: LookupOptions,
): Promise<{ registry: string; files: Record<string, `sha256:${string}`> }> {
  const shown = plan.indexes.map((i) => redactUrl(i.endsWith("/") ? i : `${i}/`));
  const want = normalizePep440(version) ?? version;
  const files: Record<string, `sha256:${string}`> = {};
  const asked: string[] = [];
  for (let i = 0; i < plan.indexes.length; i++) {
    const fail = registryFail(`index ${shown[i]}`);
    try {
      new URL(plan.indexes[i]!);
    } catch {
      throw fail("not a URL");
    }
    const page = await askIndex(
      plan.indexes[i]!,
      project,
      plan.netrc,
      options,
      fail,
      readFiles(project),
    );
    if (page === undefined) continue;
    asked.push(shown[i]!);
    for (const file of page) {
      if (file.version !== want) continue;
      if (file.sha256 === undefined)
        throw fail(`lists ${file.filename} of ${project} ${version} without a sha256 hash`);
      const digest = `sha256:${file.sha256}` as const;
      const seen = Object.hasOwn(files, file.filename) ? files[file.filename] : undefined;
      if (seen !== undefined && seen !== digest)
        throw fail(`lists ${file.filename} with a sha256 another index (or line) gives otherwise`);
      setMember(files, file.filename, digest);
    }
    if (plan.strategy === "first") break;
  }
  const where = asked.length > 0 ? asked.join(" ") : shown.join(" ");
  if (asked.length === 0)
    throw registryFail(plan.indexes.length === 1 ? `index ${where}` : `indexes ${where}`)(
      `has no package ${project}`,
    );
  if (Object.keys(files).length === 0)
    throw registryFail(`index ${where}`)(`lists no file of ${project} ${version}`);
  return { registry: where, files };
}
