import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import { resolve } from "node:path";
import type { FileResult } from "../config/wrap/rewrite-configs.js";
import { parseCommandArgs } from "./args.js";
import { checkConfigOptions, nothingFound } from "./config-files.js";
import { LOCK_OPTIONS, lockPath } from "./common.js";
import { EXIT } from "./exit-code.js";
import type { Io } from "./io.js";
import { renderDiff, renderOutcomes, type Verbs } from "./render/wrap-text.js";

/** The options wrap and unwrap share. */
export const CONFIG_HELP = `  --from PATH          rewrite this config file (repeatable; format recognised by
                       content, as for init)
  (no --from)          the project's client configs in the current directory:
                       .mcp.json, .vscode/mcp.json, .cursor/mcp.json,
                       .zed/settings.json, .gemini/settings.json,
                       .continue/mcpServers/*.yaml (YAML
                       is never rewritten: its entries are left alone, exit 1)
  --user               also the user-level configs (Claude Desktop, ~/.claude.json,
                       ~/.cursor/mcp.json, Windsurf, Codex, Gemini CLI, Zed,
                       Continue, Cline); without it,
                       a config whose real file (links followed) is outside the
                       project, or is a user-level one, is refused
  --dry-run            print the change as a unified diff (secrets masked) and
                       write nothing`;

/**
 * The argv that runs this contractpin: this node and this CLI's script, both
 * absolute, so that a client started with a short PATH (a desktop app) finds
 * them, and the guard is the same version that wrote the entry.
 */
function launcher(): string[] {
  return [process.execPath, realpathSync(process.argv[1]!)];
}

/** Runs `contractpin wrap` or `contractpin unwrap`. */
export async function runRewrite(
  command: "wrap" | "unwrap",
  args: string[],
  io: Io,
): Promise<number> {
  const { values } = parseCommandArgs(
    command,
    args,
    {
      ...(command === "wrap" ? LOCK_OPTIONS : {}),
      from: { type: "string", multiple: true },
      user: { type: "boolean" },
      "dry-run": { type: "boolean" },
    },
    0,
  );
  checkConfigOptions(command, values);
  // Loaded here: only these commands (and init) read client configs and TOML.
  const { selectConfigs } = await import("../config/discover.js");
  const { rewriteConfigs } = await import("../config/wrap/rewrite-configs.js");
  const { configScope } = await import("../config/wrap/config-scope.js");
  const projectDir = process.cwd();
  const home = homedir();
  const user = values.user === true;
  const selected = selectConfigs(values.from, user, { projectDir, home });
  let mode: Parameters<typeof rewriteConfigs>[1]["mode"] = { unwrap: undefined };
  if (command === "wrap") {
    const { readLock } = await import("../io/lock-file.js");
    const file = await lockPath(values as { lock?: string }, io);
    mode = { wrap: { lock: await readLock(file), lockPath: resolve(file), launcher: launcher() } };
  }
  const dryRun = values["dry-run"] === true;
  const results = await rewriteConfigs(selected, {
    mode,
    projectDir,
    home,
    dryRun,
    scope: configScope(projectDir, home, user, command),
  });
  if (results.length === 0) {
    await io.err(`${nothingFound(selected.searched, user, `nothing to ${command}`)}\n`);
    return EXIT.OK;
  }
  const verbs: Verbs =
    command === "wrap"
      ? { done: "wrapped", planned: "would wrap" }
      : { done: "restored", planned: "would restore" };
  if (dryRun) {
    await io.out(renderDiff(results));
    await io.err(renderOutcomes(results, verbs, true));
  } else {
    await io.out(renderOutcomes(results, verbs, false));
  }
  return exitCode(results);
}

/** 1 when an entry that should have changed was left as it is; else 0. */
function exitCode(results: FileResult[]): number {
  return results.some((r) => r.plan.outcomes.some((o) => o.missed)) ? EXIT.DRIFT : EXIT.OK;
}
