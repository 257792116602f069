import { parseJson } from "../core/strict-json.js";
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

/** The version a distribution file of `project` holds, or undefined when it holds none of it. */
export function fileVersion(filename: string, project: string): string | undefined {
  const want = normalizeProjectName(project);
  let version: string | undefined;
  if (filename.endsWith(".whl")) {
    // {name}-{version}(-{build})?-{python}-{abi}-{platform}.whl; the name has no dash (escaped `_`).
    const parts = filename.slice(0, -4).split("-");
    if (parts.length !== 5 && parts.length !== 6) return undefined;
    if (normalizeProjectName(parts[0]!) !== want) return undefined;
    version = parts[1];
  } else {
    const suffix = SDIST_SUFFIXES.find((s) => filename.toLowerCase().endsWith(s));
    if (suffix === undefined) return undefined;
    const stem = filename.slice(0, -suffix.length);
    // A legacy sdist name may hold dashes: the version follows the dash after which the name matches.
    for (let i = stem.indexOf("-"); i >= 0; i = stem.indexOf("-", i + 1)) {
      if (normalizeProjectName(stem.slice(0, i)) === want) {
        version = stem.slice(i + 1);
        break;
      }
    }
  }
  return version === undefined ? undefined : normalizePep440(version);
}

interface IndexFile {
  filename: string;
  yanked: boolean;
}

/** The versions the files offer, each once (normalised), yanked files left out. */
function offered(files: readonly IndexFile[], project: string, listed?: Set<string>): string[] {
  const versions = new Set<string>();
  for (const f of files) {
    if (f.yanked) continue;
    const v = fileVersion(f.filename, project);
    if (v !== undefined && (listed === undefined || listed.has(v))) versions.add(v);
  }
  return [...versions];
}

/**
 * A PEP 691 JSON project page, through the strict parser. PEP 700's
 * `versions`, when present, bounds what the files offer (a version with no
 * file that may be installed is not offered).
 * @throws Error with a one-line reason when the page is not one.
 */
export function jsonPageVersions(body: Uint8Array, project: string): string[] {
  const doc = parseJson(body);
  if (typeof doc !== "object" || doc === null || Array.isArray(doc))
    throw new Error("not an object");
  const files = (doc as Record<string, unknown>)["files"];
  if (!Array.isArray(files)) throw new Error("no 'files' list");
  const parsed: IndexFile[] = files.map((f) => {
    const entry = f as Record<string, unknown>;
    if (typeof entry !== "object" || entry === null || typeof entry["filename"] !== "string") {
      throw new Error("a file without a 'filename'");
    }
    const yanked = entry["yanked"];
    return { filename: entry["filename"], yanked: yanked !== undefined && yanked !== false };
  });
  const listed = (doc as Record<string, unknown>)["versions"];
  if (listed === undefined) return offered(parsed, project);
  if (!Array.isArray(listed) || !listed.every((v) => typeof v === "string")) {
    throw new Error("a 'versions' that is not a list of strings");
  }
  const known = listed.map((v) => normalizePep440(v)).filter((v) => v !== undefined);
  return offered(parsed, project, new Set(known));
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, e: string) => {
    if (e[0] === "#") {
      const code = e[1] === "x" || e[1] === "X" ? parseInt(e.slice(2), 16) : parseInt(e.slice(1));
      return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[e.toLowerCase()] ?? whole;
  });
}

/**
 * A PEP 503 HTML project page: each anchor's `href` names a file (its last
 * path segment, without `#hash` or query, percent-decoded, as pip takes it);
 * `data-yanked` marks it yanked.
 */
export function htmlPageVersions(html: string, project: string): string[] {
  const files: IndexFile[] = [];
  for (const m of html.matchAll(/<a\b((?:[^>"']|"[^"]*"|'[^']*')*)>/gi)) {
    const attrs = new Map<string, string>();
    for (const a of m[1]!.matchAll(
      /([^\s=/"']+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?/g,
    )) {
      attrs.set(a[1]!.toLowerCase(), decodeEntities(a[2] ?? a[3] ?? a[4] ?? ""));
    }
    const href = attrs.get("href");
    if (href === undefined) continue;
    const path = href.replace(/[#?].*$/s, "");
    let filename: string;
    try {
      filename = decodeURIComponent(path.slice(path.lastIndexOf("/") + 1));
    } catch {
      continue;
    }
    files.push({ filename, yanked: attrs.has("data-yanked") });
  }
  return offered(files, project);
}

/** Whether a Content-Type names the JSON form of the Simple API. */
export function isJsonPage(contentType: string | null): boolean {
  return (
    (contentType ?? "").split(";")[0]!.trim().toLowerCase() ===
    "application/vnd.pypi.simple.v1+json"
  );
}
