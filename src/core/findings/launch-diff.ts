import { canonicalize } from "../json/canonical-json.js";
import type { JsonValue } from "../json/json-value.js";
import type { ServerSource } from "../source/server-source.js";
import { sameJson } from "./diff-json.js";
import { diffChars, renderWordDiff, type TextChange, type WordDiffPaint } from "./diff-text.js";
import { confusableMap } from "./confusables.js";

/**
 * What a client is asked to launch, as far as a reviewer compares it: the
 * transport, a stdio server's argv, the names of its environment variables
 * and its working directory, an HTTP server's URL and the names of its
 * headers, a file server's path. Values of variables and headers are left
 * out: in a client config they may be secrets, and what they name is the
 * launch line's business, not what they hold.
 */
export interface LaunchLine {
  transport: ServerSource["transport"];
  command?: string[];
  /** Environment variable names, sorted. */
  env?: string[];
  cwd?: string;
  url?: string;
  /** Header names, sorted. */
  headers?: string[];
  path?: string;
}

/** A part of a launch line, in the order they are compared and shown. */
export const LAUNCH_PARTS = [
  "transport",
  "command",
  "env",
  "cwd",
  "url",
  "headers",
  "path",
] as const;
export type LaunchPart = (typeof LAUNCH_PARTS)[number];

/** The launch line of a lock's (or a mapped config entry's) server source. */
export function launchLine(source: ServerSource): LaunchLine {
  const names = (o: Record<string, string> | undefined) =>
    o === undefined ? undefined : Object.keys(o).sort();
  const line: LaunchLine = { transport: source.transport };
  const set = <K extends LaunchPart>(key: K, value: LaunchLine[K] | undefined) => {
    if (value !== undefined) line[key] = value;
  };
  if (source.transport === "stdio") {
    set("command", [...source.command]);
    set("env", names(source.env));
    set("cwd", source.cwd);
  } else if (source.transport === "http") {
    set("url", source.url);
    set("headers", names(source.headers));
  } else set("path", source.path);
  return line;
}

/**
 * One value shown whole, with what changed marked: the diff of the two
 * values' canonical JSON, character by character. `before` is the diff's
 * equal and removed runs, `after` its equal and added runs.
 */
export interface MarkedValues {
  before: TextChange[];
  after: TextChange[];
}

/** One part of a launch line that differs: the two values whole (absent when none), marked. */
export interface LaunchPartChange {
  part: LaunchPart;
  before?: JsonValue;
  after?: JsonValue;
  marked: MarkedValues;
}

/** The registry a package runner takes its packages from (as core/source/package-runner.ts names them). */
export type RunnerEcosystem = "npm" | "python" | "pipx" | "docker";

/** The package (or image) a command runs through a package runner. */
export interface RunnerName {
  ecosystem: RunnerEcosystem;
  /** The name without its version (`@scope/name`, `mcp-server-fetch`, `mcp/fetch`). */
  name: string;
  /** The index in the command of the argument that holds it. */
  argIndex: number;
}

/**
 * Reads the package a command runs (core/source/package-runner.ts `runnerPackage`),
 * passed in so that this module stays pure and below the config layer.
 */
export type PackageOf = (command: readonly string[]) => RunnerName | undefined;

/** Two package names that differ only by characters a reader confuses. */
export interface PackageLookAlike {
  ecosystem: RunnerEcosystem;
  /** The pinned name. */
  pinned: string;
  /** The other name. */
  other: string;
  /** The index in the other command of the argument that holds it. */
  argIndex: number;
  marked: MarkedValues;
}

/** How two launch lines differ. */
export interface LaunchDiff {
  /** The parts that differ, in {@link LAUNCH_PARTS} order; empty when the lines are the same. */
  changed: LaunchPartChange[];
  /** Set when the two commands run packages whose names differ only by confusable characters. */
  lookAlike?: PackageLookAlike;
}

/**
 * Compares a pinned launch line with another: which parts differ, each
 * with both values whole and the changed characters marked, and whether the
 * package the other runs has a name that only looks like the pinned one's
 * ({@link confusablePackageNames}). Pure.
 */
export function diffLaunch(
  pinned: LaunchLine,
  other: LaunchLine,
  packageOf: PackageOf,
): LaunchDiff {
  const changed: LaunchPartChange[] = [];
  for (const part of LAUNCH_PARTS) {
    const before = pinned[part];
    const after = other[part];
    if (before === undefined && after === undefined) continue;
    if (before !== undefined && after !== undefined && sameJson(before, after)) continue;
    const change: LaunchPartChange = { part, marked: markValues(before, after) };
    if (before !== undefined) change.before = before;
    if (after !== undefined) change.after = after;
    changed.push(change);
  }
  const diff: LaunchDiff = { changed };
  const lookAlike = commandLookAlike(pinned.command, other.command, packageOf);
  if (lookAlike !== undefined) diff.lookAlike = lookAlike;
  return diff;
}

/**
 * The look-alike package of two commands, when both run a package of the
 * same registry whose names differ only by confusable characters.
 */
export function commandLookAlike(
  pinned: readonly string[] | undefined,
  other: readonly string[] | undefined,
  packageOf: PackageOf,
): PackageLookAlike | undefined {
  if (pinned === undefined || other === undefined) return undefined;
  const a = packageOf(pinned);
  const b = packageOf(other);
  if (a === undefined || b === undefined || REGISTRY[a.ecosystem] !== REGISTRY[b.ecosystem])
    return undefined;
  if (!confusablePackageNames(a.name, b.name, b.ecosystem)) return undefined;
  return {
    ecosystem: b.ecosystem,
    pinned: a.name,
    other: b.name,
    argIndex: b.argIndex,
    marked: markValues(a.name, b.name),
  };
}

// uvx and pipx both install from a Python index.
const REGISTRY: Record<RunnerEcosystem, string> = {
  npm: "npm",
  python: "python",
  pipx: "python",
  docker: "docker",
};

/**
 * Two values' canonical JSON, diffed character by character: each side
 * whole, with what it does not share with the other marked.
 */
export function markValues(
  before: JsonValue | undefined,
  after: JsonValue | undefined,
): MarkedValues {
  const a = before === undefined ? "" : canonicalize(before);
  const b = after === undefined ? "" : canonicalize(after);
  const runs = diffChars(a, b);
  return {
    before: runs.filter((r) => r.kind !== "added"),
    after: runs.filter((r) => r.kind !== "removed"),
  };
}

/**
 * One side of {@link MarkedValues} as one line: `[-removed-]` and
 * `{+added+}` around what changed, as git's `--word-diff=plain` writes them,
 * readable without colour in a terminal, a CI log and a Markdown code span;
 * `paint` adds colour on a terminal. Every run goes through visibleText, and
 * a marker inside the value is written with `<U+XXXX>` for its bracket
 * (renderWordDiff), so the marks are the diff's own. `(absent)` for a side
 * with no value.
 */
export function renderMarked(runs: readonly TextChange[], paint?: WordDiffPaint): string {
  if (runs.length === 0) return "(absent)";
  // One line: a line feed in a value is canonical JSON's `\n` already.
  return renderWordDiff(runs, paint);
}

/**
 * A package name reduced to what a reader tells apart, for comparing package
 * names (after UTS #39's skeleton, as nameSkeleton): NFKC, invisible
 * characters and combining marks removed, each character replaced by the
 * ASCII prototype it looks like before and after case is folded (so a capital
 * `I` reads as `l`, `0` as `o`, Cyrillic `а` as `a`, `m` as `rn`), and every
 * character that is not a letter or a digit (`-`, `_`, `.`, `@`, `/`) dropped.
 */
export function packageSkeleton(name: string): string {
  const map = confusableMap();
  const mapped = (text: string) => {
    let out = "";
    for (const ch of text) out += map.get(ch.codePointAt(0)!) ?? ch;
    return out;
  };
  const plain = name
    .normalize("NFKC")
    .replace(/[\p{Cf}\p{Default_Ignorable_Code_Point}]/gu, "")
    .normalize("NFD")
    .replace(/\p{M}/gu, "");
  return mapped(mapped(plain).toLowerCase()).replace(/[^\p{L}\p{N}]/gu, "");
}

/**
 * True when two package names differ but a reader could take one for the
 * other: same {@link packageSkeleton} (case, look-alike letters, added or
 * dropped punctuation). Names a registry treats as one package are not
 * look-alikes: PyPI's normalized names (PEP 503: case, runs of `-_.`).
 */
export function confusablePackageNames(
  pinned: string,
  other: string,
  ecosystem: RunnerEcosystem,
): boolean {
  if (pinned === other) return false;
  if (REGISTRY[ecosystem] === "python" && pep503(pinned) === pep503(other)) return false;
  return packageSkeleton(pinned) === packageSkeleton(other);
}

function pep503(name: string): string {
  return name.replace(/[-_.]+/g, "-").toLowerCase();
}
