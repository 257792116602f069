import path from "node:path";
import { readIfPresent, type SelectedConfigs } from "../discover.js";
import { realConfig, type ConfigScope } from "./config-scope.js";
import { launchForm } from "./launch-form.js";
import { planFile, type FilePlan, type PlanContext, type WrapTarget } from "./plan.js";
import { writeConfig } from "./write-config.js";

/** One config file's plan, and where its backup went once written. */
export interface FileResult {
  plan: FilePlan;
  backup?: string;
  /** Why a shared project config's wrapped entries name this machine's paths (launch-form.ts). */
  note?: string;
}

/** How rewriteConfigs runs. */
export interface RewriteOptions {
  /** `{ wrap }` wraps the entries the lock pins; `{ unwrap: undefined }` restores every wrapped entry. */
  mode: { wrap: WrapTarget } | { unwrap: undefined };
  projectDir: string;
  home?: string;
  /** Plan only: write nothing (default false). */
  dryRun?: boolean;
  /** Which files may be rewritten (projectDir and named come from this call's other options). */
  scope: Omit<ConfigScope, "projectDir" | "named">;
}

/**
 * Wraps or unwraps the server entries of the selected config files. Every
 * file is resolved to its real file (see config-scope.ts) and planned before
 * any is written, so a malformed file or one outside the project stops the
 * command before it changes anything. The real file is the one written and
 * named in the plan, and its backup goes beside it. A file that holds no
 * server list, or (when discovered) does not exist, is passed over; two
 * paths of the same real file are read once.
 *
 * @throws ContractpinError USAGE for a file a project command may not rewrite;
 *   CONFIG_INVALID for a file that cannot be read or parsed; CONFIG_CHANGED
 *   when a file changed while it was being rewritten.
 */
export async function rewriteConfigs(
  selected: SelectedConfigs,
  options: RewriteOptions,
): Promise<FileResult[]> {
  const ctx: PlanContext = {
    projectDir: options.projectDir,
    ...(options.home === undefined ? {} : { home: options.home }),
    required: selected.required,
  };
  const planned: Array<{ plan: FilePlan; bytes: Uint8Array; note?: string }> = [];
  const seen = new Set<string>();
  const scope = { ...options.scope, projectDir: options.projectDir, named: selected.required };
  for (const file of selected.paths) {
    const real = realConfig(file, scope);
    const resolved = path.resolve(real);
    if (seen.has(resolved)) continue;
    seen.add(resolved);
    const bytes = await readIfPresent(real, selected.required);
    if (bytes === undefined) continue;
    // Parsed under the name the client reads it by; written, and shown, as the real file.
    const { mode, note } = modeFor(real, options);
    const plan = planFile(bytes, file, mode, ctx);
    if (plan === undefined) continue;
    if (resolved !== path.resolve(file)) plan.file = real;
    planned.push({ plan, bytes, ...(note !== undefined && plan.edits.length > 0 ? { note } : {}) });
  }
  const results: FileResult[] = [];
  for (const { plan, bytes, note } of planned) {
    const result: FileResult = note === undefined ? { plan } : { plan, note };
    if (options.dryRun !== true && plan.after !== plan.before) {
      result.backup = await writeConfig(plan.file, bytes, plan.after);
    }
    results.push(result);
  }
  return results;
}

/** The mode for one file: for wrap, the launch form its place calls for (launch-form.ts). */
function modeFor(
  realFile: string,
  options: RewriteOptions,
): { mode: RewriteOptions["mode"]; note?: string } {
  if (!("wrap" in options.mode)) return { mode: options.mode };
  const target = options.mode.wrap;
  const { form, note } = launchForm(realFile, options.projectDir, {
    launcher: target.launcher,
    lockArg: target.lockPath,
  });
  const wrap = { ...target, launcher: form.launcher, lockArg: form.lockArg };
  return note === undefined ? { mode: { wrap } } : { mode: { wrap }, note };
}
