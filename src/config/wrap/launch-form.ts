// How a wrapped entry launches the guard. A project config that a team
// commits (`.mcp.json`, `.vscode/mcp.json`, `.cursor/mcp.json`) must work on
// a teammate's machine and in CI: it runs the project's own installed
// contractpin through `npx --no` (never one fetched by name) and names the
// project and the lock in the form its client resolves. Every other
// config (user-level ones, a file named with --from elsewhere) launches this
// machine's node and contractpin by absolute path, which a desktop app
// started with a short PATH still finds.
import { existsSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";

/** How a wrapped entry runs contractpin: the argv before `guard`, and how it names the lock. */
export interface LaunchForm {
  /** e.g. [node, /abs/contractpin.cjs] or ["npx", "--no", "contractpin"]. */
  launcher: string[];
  /** The lock as the entry names it: an absolute path, or one its client resolves in the project. */
  lockArg: string;
}

/** The argv that runs the project's installed contractpin, from the project directory. */
export const PROJECT_LAUNCHER = ["npx", "--no", "contractpin"];

// VS Code and Cursor expand ${workspaceFolder} in args: npx is pointed at the
// project (--prefix), so it finds the installed contractpin whatever directory
// the client starts it in, and the lock is named by its full path.
const WORKSPACE_LAUNCHER = ["npx", "--prefix", "${workspaceFolder}", "--no", "contractpin"];

/** The shared project configs, and how each client is told where the project is. */
const SHARED: Array<{ parts: string[]; launcher: string[]; lock: (rel: string) => string }> = [
  // Claude Code starts a project's servers in the project directory and expands only ${VAR}.
  { parts: [".mcp.json"], launcher: PROJECT_LAUNCHER, lock: (rel) => rel },
  {
    parts: [".vscode", "mcp.json"],
    launcher: WORKSPACE_LAUNCHER,
    lock: (rel) => `\${workspaceFolder}/${rel}`,
  },
  {
    parts: [".cursor", "mcp.json"],
    launcher: WORKSPACE_LAUNCHER,
    lock: (rel) => `\${workspaceFolder}/${rel}`,
  },
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

/** Whether `npx --no contractpin` run in `dir` finds an installed contractpin. */
function installedIn(dir: string): boolean {
  for (let d = dir; ; d = path.dirname(d)) {
    if (existsSync(path.join(d, "node_modules", ".bin", "contractpin"))) return true;
    if (path.dirname(d) === d) return false;
  }
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
  if (!installedIn(project)) {
    return {
      form: machine,
      note:
        "contractpin is not installed in this project (no node_modules/.bin/contractpin), so " +
        "the entries run this machine's copy by absolute path, which other machines lack; " +
        "install it as a devDependency, then unwrap and wrap again to share the wrapped config",
    };
  }
  return {
    form: { launcher: shared.launcher, lockArg: shared.lock(rel.split(path.sep).join("/")) },
  };
}
