// How a wrapped entry launches the guard. A project config that a team
// commits (`.mcp.json`, `.vscode/mcp.json`, `.cursor/mcp.json`) must work on
// a teammate's machine and in CI: it runs the project's own installed
// contractpin (never one fetched by name) with `node`, by its path inside the
// project, and names the project and the lock in the form its client
// resolves. Not through `npx --no`: npx loads npm before it starts anything,
// about a second on every start of every guarded server, enough for a client
// that does not wait for its servers (Claude Code in -p mode) to go on
// without them. Nor `node SCRIPT` alone: in a clone before `npm ci` that is
// node's "Cannot find module" and a stack trace; the entry runs GUARD_SHIM
// (`node -e`), which says to run `npm ci` then. Every other config (user-level ones, a file named with
// --from elsewhere) launches this machine's node and contractpin by absolute
// path, which a desktop app started with a short PATH still finds.
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { getMember, isJsonObject } from "../../core/json/json-value.js";

/** How a wrapped entry runs contractpin: the argv before `guard`, and how it names the lock. */
export interface LaunchForm {
  /** e.g. [/abs/node, /abs/contractpin.cjs] or ["node", "-e", GUARD_SHIM, "node_modules/contractpin/dist/bin/contractpin.cjs"]. */
  launcher: string[];
  /** The lock as the entry names it: an absolute path, or one its client resolves in the project. */
  lockArg: string;
}

/**
 * What a shared project config's entry runs with `node -e`, given the
 * installed script's path then the guard's arguments: when the project's
 * contractpin is not installed (a clone before `npm ci`) or is older than
 * this form, one plain stderr line saying to install it, and exit 2; else
 * the launcher's `main` (src/cli/launch.cts), as if node ran the script. It
 * only reads the script's path; one stat more than `node SCRIPT` at start.
 * Written into configs that teams commit, it must keep working with every
 * later contractpin, and holds no double quote (JSON) and no `${` (which
 * Claude Code, VS Code and Cursor would expand).
 */
export const GUARD_SHIM =
  "const p=require('path').resolve(process.argv[1]),m=require('fs').existsSync(p)&&require(p);" +
  "if(typeof m.main!=='function'){console.error('contractpin: '+p+' is missing or out of date: " +
  "contractpin is not installed in this project; run npm ci in it (or npm install --save-dev " +
  "contractpin), then restart the MCP client');process.exit(2)}process.argv[1]=p;m.main()";

/** The shared project configs, and how each client is told where the project is. */
const SHARED: Array<{ parts: string[]; place: (rel: string) => string }> = [
  // Claude Code starts a project's servers in the project directory and expands only ${VAR}.
  { parts: [".mcp.json"], place: (rel) => rel },
  // VS Code and Cursor expand ${workspaceFolder} in args, whatever directory they start it in.
  { parts: [".vscode", "mcp.json"], place: (rel) => `\${workspaceFolder}/${rel}` },
  { parts: [".cursor", "mcp.json"], place: (rel) => `\${workspaceFolder}/${rel}` },
];

// Project configs a team may commit whose clients start servers in no
// directory contractpin can name: wrapped, they keep this machine's paths.
const OTHER_PROJECT_CONFIGS = [
  [".zed", "settings.json"],
  [".gemini", "settings.json"],
];

function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

/**
 * The script of the contractpin installed for `dir` (in its node_modules or
 * an ancestor's, where node and npm look), as its package.json's `bin`
 * names it; undefined when there is none.
 */
function installedScript(dir: string): string | undefined {
  for (let d = dir; ; d = path.dirname(d)) {
    const pkg = path.join(d, "node_modules", "contractpin");
    if (existsSync(path.join(d, "node_modules", ".bin", "contractpin"))) {
      const bin = binOf(path.join(pkg, "package.json"));
      if (bin !== undefined && existsSync(path.join(pkg, bin))) return path.join(pkg, bin);
    }
    if (path.dirname(d) === d) return undefined;
  }
}

/** The `bin` script of contractpin's package.json, relative to the package. */
function binOf(file: string): string | undefined {
  try {
    const manifest: unknown = JSON.parse(readFileSync(file, "utf8"));
    if (!isJsonObject(manifest)) return undefined;
    const bin = getMember(manifest, "bin");
    const script = isJsonObject(bin) ? getMember(bin, "contractpin") : bin;
    if (typeof script !== "string") return undefined;
    const rel = path.normalize(script);
    return rel.startsWith("..") || path.isAbsolute(rel) ? undefined : rel;
  } catch {
    return undefined;
  }
}

/** `to` relative to `from`, with forward slashes, as a committed config spells it. */
function portable(from: string, to: string): string {
  return path.relative(from, to).split(path.sep).join("/");
}

/**
 * The launch form for the config whose real file is `realFile`, and, when a
 * shared project config must keep this machine's paths, the line that says
 * why (the lock is outside the project, or contractpin is not installed in it).
 *
 * @param machine this machine's form: absolute launcher and lock path.
 */
export function launchForm(
  realFile: string,
  projectDir: string,
  machine: LaunchForm,
): { form: LaunchForm; note?: string } {
  const project = real(projectDir);
  const file = real(realFile);
  const shared = SHARED.find((s) => path.join(project, ...s.parts) === file);
  if (shared === undefined) {
    // A project config by its name, in a project that is not the home folder
    // (~/.cursor/mcp.json and ~/.gemini/settings.json are user-level configs).
    const committed = [...SHARED.map((s) => s.parts), ...OTHER_PROJECT_CONFIGS].some(
      (parts) =>
        file.endsWith(path.sep + path.join(...parts)) &&
        file.slice(0, -path.join(...parts).length - 1) !== real(homedir()),
    );
    if (!committed) return { form: machine };
    return {
      form: machine,
      note:
        "this is a project config, which a team commits, and its entries name this machine's " +
        "node, contractpin and lock by absolute path, which other machines lack" +
        (SHARED.some((s) => file.endsWith(path.sep + path.join(...s.parts)))
          ? "; run wrap in that project, with contractpin installed there, to share the wrapped config"
          : "; keep it uncommitted, or wrap the user-level config instead"),
    };
  }
  const rel = path.relative(project, real(machine.lockArg));
  if (rel.startsWith("..") || path.isAbsolute(rel)) {
    return {
      form: machine,
      note:
        "the lock is outside the project, so the entries name this machine's paths, which " +
        "other machines lack; keep the lock in the project to share the wrapped config",
    };
  }
  const script = installedScript(project);
  if (script === undefined) {
    return {
      form: machine,
      note:
        "contractpin is not installed in this project (no node_modules/.bin/contractpin), so " +
        "the entries run this machine's copy by absolute path, which other machines lack; " +
        "install it as a devDependency, then unwrap and wrap again to share the wrapped config",
    };
  }
  return {
    form: {
      launcher: ["node", "-e", GUARD_SHIM, shared.place(portable(project, script))],
      lockArg: shared.place(rel.split(path.sep).join("/")),
    },
  };
}
