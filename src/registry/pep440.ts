/**
 * Python package versions as PEP 440 defines them (the order pip and uv use):
 * `[N!]N(.N)*[{a|b|rc}N][.postN][.devN][+local]`, with the spellings PEP 440
 * normalises (`1.0-alpha.1` is `1.0a1`, `1.0-1` is `1.0.post1`, `v1.0` is
 * `1.0`), and a release compared without its trailing zeros (`1.0` == `1.0.0`).
 */

import { compareNumerals, withoutLeadingZeros } from "./numerals.js";
import { eachPaced, highest, Pace } from "./pace.js";
import { scanPep440 } from "./pep440-scan.js";

/**
 * A parsed version; each number as its digits without leading zeros (any
 * length: a segment may exceed 2^53, and is compared by compareNumerals).
 */
export interface Pep440 {
  epoch: string;
  release: string[];
  pre?: { label: "a" | "b" | "rc"; n: string };
  post?: string;
  dev?: string;
  /** The local label's parts: a number's digits, or a word (lower case). */
  local?: { digits?: string; word?: string }[];
}

const PRE_LABELS: Record<string, "a" | "b" | "rc"> = {
  a: "a",
  alpha: "a",
  b: "b",
  beta: "b",
  c: "rc",
  rc: "rc",
  pre: "rc",
  preview: "rc",
};

/** The version, or undefined when the text is not a PEP 440 version. */
export function parsePep440(text: string): Pep440 | undefined {
  const m = scanPep440(text);
  if (m === undefined) return undefined;
  const [epoch, release, preL, preN, postN1, postL, postN2, devL, devN, local] = m;
  const n = (s: string | undefined) => withoutLeadingZeros(s ?? "0");
  return {
    epoch: n(epoch),
    release: release.split(".").map(n),
    ...(preL === undefined ? {} : { pre: { label: PRE_LABELS[preL.toLowerCase()]!, n: n(preN) } }),
    ...(postN1 !== undefined
      ? { post: n(postN1) }
      : postL !== undefined
        ? { post: n(postN2) }
        : {}),
    ...(devL === undefined ? {} : { dev: n(devN) }),
    ...(local === undefined
      ? {}
      : {
          local: local
            .toLowerCase()
            .split(/[-_.]/)
            .map((s) => (/^\d+$/.test(s) ? { digits: n(s) } : { word: s })),
        }),
  };
}

/** The normalised spelling of a version (`1.0-ALPHA.1` is `1.0a1`), or undefined when it is none. */
export function normalizePep440(text: string): string | undefined {
  const v = parsePep440(text);
  if (v === undefined) return undefined;
  return (
    (v.epoch === "0" ? "" : `${v.epoch}!`) +
    v.release.join(".") +
    (v.pre === undefined ? "" : `${v.pre.label}${v.pre.n}`) +
    (v.post === undefined ? "" : `.post${v.post}`) +
    (v.dev === undefined ? "" : `.dev${v.dev}`) +
    (v.local === undefined ? "" : `+${v.local.map((p) => p.digits ?? p.word).join(".")}`)
  );
}

/** A pre-release or development release: what pip and uv skip unless nothing else is offered. */
export function isPrerelease(v: Pep440): boolean {
  return v.pre !== undefined || v.dev !== undefined;
}

// The sort key of packaging's Version, with -1/+1 for its negative and positive infinities.
function preKey(v: Pep440): [number, number, string] {
  if (v.pre === undefined && v.post === undefined && v.dev !== undefined) return [-1, 0, "0"]; // 1.0.dev0 < 1.0a0
  if (v.pre === undefined) return [1, 0, "0"];
  return [0, ["a", "b", "rc"].indexOf(v.pre.label), v.pre.n];
}

function compareLocal(a: Pep440["local"], b: Pep440["local"]): number {
  if (a === undefined || b === undefined) return a === b ? 0 : a === undefined ? -1 : 1;
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i];
    const y = b[i];
    if (x === undefined || y === undefined) return x === undefined ? -1 : 1;
    // A number ranks above a word.
    if ((x.digits === undefined) !== (y.digits === undefined))
      return x.digits === undefined ? -1 : 1;
    const d =
      x.digits !== undefined
        ? compareNumerals(x.digits, y.digits!)
        : x.word! < y.word!
          ? -1
          : x.word! > y.word!
            ? 1
            : 0;
    if (d !== 0) return d;
  }
  return 0;
}

/** Compares two optional numbers, an absent one ranking as `absent` (-1 below any, 1 above). */
function compareOptional(a: string | undefined, b: string | undefined, absent: -1 | 1): number {
  if (a === undefined || b === undefined) return a === b ? 0 : a === undefined ? absent : -absent;
  return compareNumerals(a, b);
}

/** Orders two parsed versions as PEP 440 does: negative when a comes first. */
export function comparePep440(a: Pep440, b: Pep440): number {
  const d = compareNumerals(a.epoch, b.epoch);
  if (d !== 0) return d;
  // Releases are padded with zeros: 1.0 == 1.0.0.
  const [x, y] = [a.release, b.release];
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const r = compareNumerals(x[i] ?? "0", y[i] ?? "0");
    if (r !== 0) return r;
  }
  const [pa, pb] = [preKey(a), preKey(b)];
  if (pa[0] !== pb[0]) return pa[0] - pb[0];
  if (pa[1] !== pb[1]) return pa[1] - pb[1];
  const p = compareNumerals(pa[2], pb[2]);
  if (p !== 0) return p;
  // No post-release ranks below any; no dev release ranks above any.
  return (
    compareOptional(a.post, b.post, -1) ||
    compareOptional(a.dev, b.dev, 1) ||
    compareLocal(a.local, b.local)
  );
}

/** Compares two version strings (each must parse; one that does not ranks first). */
export function compareVersionText(a: string, b: string): number {
  const x = parsePep440(a);
  const y = parsePep440(b);
  if (x === undefined || y === undefined) return x === y ? 0 : x === undefined ? -1 : 1;
  return comparePep440(x, y);
}

/**
 * An exact public version that may go into a command line (`pkg==1.2.3`,
 * `pkg@1.2.3`): PEP 440, no local part (`+abc`), no blank, no other character.
 */
export function isPep440Version(text: string): boolean {
  if (!/^[0-9][0-9A-Za-z.!_-]*$/.test(text)) return false;
  const v = parsePep440(text);
  return v !== undefined && v.local === undefined;
}

/**
 * The version pip and uv take by default: the highest that is not a
 * pre-release, or the highest pre-release when nothing else is offered; with
 * `pre` (pip's --pre, uv's --prerelease allow), the highest of all.
 */
export async function latestPep440(
  versions: readonly string[],
  pre = false,
  pace: Pace = new Pace(),
): Promise<string | undefined> {
  const parsed: { text: string; v: Pep440 }[] = [];
  await eachPaced(versions, pace, (text) => {
    pace.count(text.length);
    const v = parsePep440(text);
    if (v !== undefined) parsed.push({ text, v });
  });
  const byVersion = (p: { v: Pep440 }, q: { v: Pep440 }) => comparePep440(p.v, q.v);
  const finals = pre ? [] : parsed.filter((p) => !isPrerelease(p.v));
  return (await highest(finals.length > 0 ? finals : parsed, byVersion, pace))?.text;
}

/** A project name as PEP 503 normalises it: lower case, each run of `-`, `_`, `.` one `-`. */
export function normalizeProjectName(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, "-");
}
