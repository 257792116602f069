import { parseJson } from "../core/json/strict-json.js";
import { eachAnchor } from "./html-anchors.js";
import { eachPaced, Pace } from "./pace.js";
import { normalizeProjectName, normalizePep440 } from "./pep440.js";

/**
 * The versions a Python package index's project page offers, as pip and uv
 * read it: each distribution file (a wheel, or an sdist `.tar.gz`/`.zip`
 * and the other archive forms pip takes) names its version; a file the index
 * marks yanked (PEP 592) is not offered, nor a file of another project or
 * whose version is not PEP 440. JSON pages are PEP 691; HTML pages PEP 503.
 */

/** The media types of the Simple API, preferred in pip's and uv's order. */
export const SIMPLE_ACCEPT =
  "application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html;q=0.2, text/html;q=0.01";

const SDIST_SUFFIXES = [".tar.gz", ".zip", ".tar.bz2", ".tbz", ".tar.xz", ".txz", ".tar", ".tgz"];
const LONGEST_SUFFIX = Math.max(...SDIST_SUFFIXES.map((s) => s.length));

/**
 * The version a distribution file of `project` holds, or undefined when it
 * holds none of it. Linear in the file name (its work counted in `pace`).
 */
export function fileVersion(
  filename: string,
  project: string,
  pace: Pace = new Pace(),
): string | undefined {
  pace.count(filename.length);
  const want = normalizeProjectName(project);
  let version: string | undefined;
  if (filename.endsWith(".whl")) {
    // {name}-{version}(-{build})?-{python}-{abi}-{platform}.whl; the name has no dash (escaped `_`).
    const parts = filename.slice(0, -4).split("-");
    if (parts.length !== 5 && parts.length !== 6) return undefined;
    if (normalizeProjectName(parts[0]!) !== want) return undefined;
    version = parts[1]!;
  } else {
    const tail = filename.slice(-LONGEST_SUFFIX).toLowerCase();
    const suffix = SDIST_SUFFIXES.find((s) => tail.endsWith(s));
    if (suffix === undefined) return undefined;
    const stem = filename.slice(0, -suffix.length);
    const dash = nameEnd(stem, want);
    if (dash < 0) return undefined;
    version = stem.slice(dash + 1);
  }
  pace.count(version.length);
  return normalizePep440(version);
}

/**
 * Where a legacy sdist's name ends: the first dash of `stem` before which the
 * text is the project's name (PEP 503-normalised, `want`), or -1. The name
 * may hold dashes itself, so each dash is a candidate; the normalised prefix
 * is built once, character by character, and the pass stops where it stops
 * matching `want` (a longer prefix only adds to it): linear in the stem.
 */
function nameEnd(stem: string, want: string): number {
  let matched = 0; // the characters of `want` the normalised prefix equals
  let inRun = false; // the prefix ends in a run of -, _ or . (normalised to one -)
  for (let i = 0; i < stem.length;) {
    const c = stem.codePointAt(i)!;
    if (c === 0x2d /* - */ && i > 0 && matched === want.length) {
      // Checked whole once: a per-character lower case could differ from the string's.
      return normalizeProjectName(stem.slice(0, i)) === want ? i : -1;
    }
    const size = c > 0xffff ? 2 : 1;
    if (c === 0x2d || c === 0x5f /* _ */ || c === 0x2e /* . */) {
      if (!inRun && want.charCodeAt(matched++) !== 0x2d) return -1;
      inRun = true;
    } else {
      const lower = String.fromCodePoint(c).toLowerCase();
      if (!want.startsWith(lower, matched)) return -1;
      matched += lower.length;
      inRun = false;
    }
    i += size;
  }
  return -1;
}

/** One distribution file a project page lists. */
export interface PageFile {
  filename: string;
  /** The version it holds (normalised PEP 440), or undefined when it holds none of the project. */
  version: string | undefined;
  /** Marked yanked (PEP 592). */
  yanked: boolean;
  /** Its sha256 as the page gives it (64 lowercase hex digits), when it gives one. */
  sha256?: string;
}

const HEX64 = /^[0-9a-fA-F]{64}$/;

/**
 * The files a PEP 691 JSON project page lists, through the strict parser,
 * and PEP 700's `versions` (normalised) when present. Paced by `pace`,
 * linear in the page.
 * @throws Error with a one-line reason when the page is not one; the
 *   signal's reason when `pace`'s signal is aborted.
 */
export async function jsonPageFiles(
  body: Uint8Array,
  project: string,
  pace: Pace = new Pace(),
): Promise<{ files: PageFile[]; known?: Set<string> }> {
  pace.count(body.byteLength);
  const doc = parseJson(body);
  if (pace.due) await pace.turn();
  if (typeof doc !== "object" || doc === null || Array.isArray(doc))
    throw new Error("not an object");
  const files = (doc as Record<string, unknown>)["files"];
  if (!Array.isArray(files)) throw new Error("no 'files' list");
  const listed = (doc as Record<string, unknown>)["versions"];
  let known: Set<string> | undefined;
  if (listed !== undefined) {
    if (!Array.isArray(listed) || !listed.every((v) => typeof v === "string")) {
      throw new Error("a 'versions' that is not a list of strings");
    }
    known = new Set();
    await eachPaced(listed as string[], pace, (v) => {
      pace.count(v.length);
      const normal = normalizePep440(v);
      if (normal !== undefined) known!.add(normal);
    });
  }
  const out: PageFile[] = [];
  await eachPaced(files, pace, (f) => {
    const entry = f as Record<string, unknown>;
    if (typeof entry !== "object" || entry === null || typeof entry["filename"] !== "string") {
      throw new Error("a file without a 'filename'");
    }
    const yanked = entry["yanked"];
    const hashes = entry["hashes"];
    const sha256 =
      typeof hashes === "object" && hashes !== null
        ? (hashes as Record<string, unknown>)["sha256"]
        : undefined;
    const file: PageFile = {
      filename: entry["filename"],
      version: fileVersion(entry["filename"], project, pace),
      yanked: yanked !== undefined && yanked !== false,
    };
    if (typeof sha256 === "string" && HEX64.test(sha256)) file.sha256 = sha256.toLowerCase();
    out.push(file);
  });
  return known === undefined ? { files: out } : { files: out, known };
}

/**
 * The versions a PEP 691 JSON project page offers: PEP 700's `versions`,
 * when present, bounds what the files offer (a version with no file that may
 * be installed is not offered). Yanked files (PEP 592) offer nothing.
 */
export async function jsonPageVersions(
  body: Uint8Array,
  project: string,
  pace: Pace = new Pace(),
): Promise<string[]> {
  const { files, known } = await jsonPageFiles(body, project, pace);
  return offered(files, known);
}

/**
 * The files a PEP 503 HTML project page lists: each anchor's `href` names a
 * file (its last path segment, without `#hash` or query, percent-decoded, as
 * pip takes it), whose `#sha256=` fragment is its hash; `data-yanked` marks
 * it yanked. Paced by `pace`, linear in the page (eachAnchor).
 * @throws the signal's reason when `pace`'s signal is aborted.
 */
export async function htmlPageFiles(
  html: string,
  project: string,
  pace: Pace = new Pace(),
): Promise<PageFile[]> {
  const out: PageFile[] = [];
  await eachAnchor(html, pace, (attributes) => {
    const href = attributes.get("href");
    if (href === undefined) return;
    const filename = hrefFileName(href);
    if (filename === undefined) return;
    const file: PageFile = {
      filename,
      version: fileVersion(filename, project, pace),
      yanked: attributes.has("data-yanked"),
    };
    const hash = /#sha256=([0-9a-fA-F]{64})$/.exec(href);
    if (hash !== null) file.sha256 = hash[1]!.toLowerCase();
    out.push(file);
  });
  return out;
}

/** The versions a PEP 503 HTML project page offers (yanked files offer none). */
export async function htmlPageVersions(
  html: string,
  project: string,
  pace: Pace = new Pace(),
): Promise<string[]> {
  return offered(await htmlPageFiles(html, project, pace));
}

/** The versions files offer: not yanked, of the project, and within `known` when given. */
function offered(files: readonly PageFile[], known?: ReadonlySet<string>): string[] {
  const versions = new Set<string>();
  for (const f of files) {
    if (f.yanked || f.version === undefined) continue;
    if (known === undefined || known.has(f.version)) versions.add(f.version);
  }
  return [...versions];
}

/** The file an href names: its last path segment, percent-decoded; undefined when it does not decode. */
function hrefFileName(href: string): string | undefined {
  let end = href.length;
  const hash = href.indexOf("#");
  const query = href.indexOf("?");
  if (hash >= 0) end = hash;
  if (query >= 0 && query < end) end = query;
  const path = href.slice(0, end);
  try {
    return decodeURIComponent(path.slice(path.lastIndexOf("/") + 1));
  } catch {
    return undefined;
  }
}

/** Whether a Content-Type names the JSON form of the Simple API. */
export function isJsonPage(contentType: string | null): boolean {
  return (
    (contentType ?? "").split(";")[0]!.trim().toLowerCase() ===
    "application/vnd.pypi.simple.v1+json"
  );
}
