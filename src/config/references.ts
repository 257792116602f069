import { REFERENCE } from "../core/source/secrets.js";

/**
 * Client configs spell references to the environment in several ways; the
 * lock knows one, `${VAR}`, expanded when contractpin reads the server. This
 * file turns each client's forms into that one, or says why it cannot.
 */

/** What the rewriting needs to know about the machine it imports on. */
export interface ReferenceContext {
  /** The directory `${workspaceFolder}` stands for. */
  projectDir: string;
  /**
   * What `${workspaceFolder}` is written as, when not `projectDir`: for a stdio
   * server, the project as a path relative to the server's working directory
   * (map-server.ts), so that the lock works on every machine.
   */
  workspace?: string;
  /** The directory `${userHome}` stands for; without it, `${userHome}` cannot be imported. */
  home?: string;
}

/** The outcome of rewriting one string. */
export type Rewritten =
  { ok: true; value: string; inputs: string[] } | { ok: false; reason: string };

// Any `${...}`; what is inside decides what it becomes.
const PLACEHOLDER = /\$\{([^}]*)\}/g;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The variable contractpin reads for VS Code's `${input:ID}`: CONTRACTPIN_INPUT_ plus ID in upper case. */
export function inputVariable(id: string): string {
  return `CONTRACTPIN_INPUT_${id.toUpperCase().replace(/[^A-Z0-9]/g, "_")}`;
}

/**
 * Rewrites the references in `value` into contractpin's `${VAR}`:
 *
 * - `${VAR}` stays;
 * - `${env:VAR}` (VS Code, Cursor, Windsurf) becomes `${VAR}`;
 * - `${input:ID}` (VS Code prompts for it) becomes `${CONTRACTPIN_INPUT_ID}`,
 *   and ID is listed in `inputs` so that the caller can say which variable to set;
 * - `${workspaceFolder}` and `${workspaceRoot}` become `ctx.workspace` (a
 *   relative path) or else the project directory, `${workspaceFolderBasename}`
 *   the project's last segment, `${userHome}` the home directory.
 *
 * Anything else (`${VAR:-default}`, `${command:...}`, ...) cannot be expanded
 * by contractpin, and the result says so. The reason names the form, never
 * what follows its first `:` or `-`, which may be a literal secret.
 */
export function rewriteReferences(value: string, ctx: ReferenceContext): Rewritten {
  const inputs: string[] = [];
  let reason: string | undefined;
  const rewritten = value.replace(PLACEHOLDER, (whole, inner: string) => {
    const replacement = rewriteOne(inner, ctx, inputs);
    if (replacement === undefined) reason ??= unsupported(inner);
    return replacement ?? whole;
  });
  // A `${` left over (unclosed, or from a substituted path) would reach the server
  // literally: expandReferences (src/core/source/server-source.ts) refuses it, so refuse it here.
  if (
    reason === undefined &&
    rewritten.replace(new RegExp(REFERENCE.source, "g"), "").includes("${")
  ) {
    reason = "it has a '${' that is not a reference contractpin can expand";
  }
  return reason === undefined ? { ok: true, value: rewritten, inputs } : { ok: false, reason };
}

function rewriteOne(inner: string, ctx: ReferenceContext, inputs: string[]): string | undefined {
  // The editors' own variables first: ${workspaceFolder} would otherwise pass for a ${VAR}.
  switch (inner) {
    case "workspaceFolder":
    case "workspaceRoot":
      return ctx.workspace ?? ctx.projectDir;
    case "workspaceFolderBasename":
      return ctx.projectDir
        .replace(/[\\/]+$/, "")
        .split(/[\\/]/)
        .pop();
    case "userHome":
      return ctx.home;
  }
  if (NAME.test(inner)) return `\${${inner}}`;
  const env = /^env:([A-Za-z_][A-Za-z0-9_]*)$/.exec(inner);
  if (env) return `\${${env[1]!}}`;
  const input = /^input:(.+)$/.exec(inner);
  if (input) {
    inputs.push(input[1]!);
    return `\${${inputVariable(input[1]!)}}`;
  }
  return undefined;
}

function unsupported(inner: string): string {
  if (inner === "userHome") return "${userHome} cannot be expanded: no home directory was given";
  const head = /^[A-Za-z_][A-Za-z0-9_]*/.exec(inner)?.[0];
  if (head !== undefined && inner.startsWith(":-", head.length)) {
    return `\${${head}:-…} (a default value) cannot be expanded by contractpin; write \${${head}} and set ${head}`;
  }
  const form = head === undefined ? "${…}" : `\${${head}${inner.length > head.length ? "…" : ""}}`;
  return `${form} cannot be expanded by contractpin, which reads only \${VAR}, \${env:VAR}, \${input:ID}, \${workspaceFolder} and \${userHome}`;
}

/**
 * True when `value` is a whole-value `$VAR` in upper case, the form Gemini CLI
 * documents for env values (`"API_KEY": "$MY_API_TOKEN"`). Upper case only, so
 * that a password that merely starts with `$` is not taken for a name.
 */
export function isBareReference(value: string): boolean {
  return /^\$[A-Z_][A-Z0-9_]*$/.test(value);
}

/** Where mapServer runs: the references' context, and what decides portable paths and skips. */
export interface MapContext extends ReferenceContext {
  /**
   * The lock's directory. With it, `${workspaceFolder}` in a stdio server is
   * written relative to the server's working directory (which the lock gives
   * relative to its own directory), not as this machine's absolute path.
   */
  lockDir?: string;
  /**
   * The environment the servers are read in. With it, a server with a VS Code
   * `${input:ID}` whose variable is unset (or empty) is skipped, not pinned.
   */
  env?: Record<string, string | undefined>;
}

/** Rewrites one value's references, in `at` (default: mapServer's context). */
export type Rewrite = (value: string, at?: ReferenceContext) => string;
