import path from "node:path";
import { readIfPresent, type SelectedConfigs } from "../discover.js";
import { planFile, type FilePlan, type PlanContext, type WrapTarget } from "./plan.js";
import { writeConfig } from "./write-config.js";

/** One config file's plan, and where its backup went once written. */
export interface FileResult {
  plan: FilePlan;
  backup?: string;
}

/** How rewriteConfigs runs. */
export interface RewriteOptions {
  /** `{ wrap }` wraps the entries the lock pins; `{ unwrap: undefined }` restores every wrapped entry. */
  mode: { wrap: WrapTarget } | { unwrap: undefined };
  projectDir: string;
  home?: string;
  /** Plan only: write nothing (default false). */
  dryRun?: boolean;
}

/**
 * Wraps or unwraps the server entries of the selected config files. Every
 * file is read and planned before any is written, so a malformed file stops
 * the command before it changes anything. A file that holds no server list,
 * or (when discovered) does not exist, is passed over; the same path given
 * twice is read once.
 *
 * @throws ContractpinError CONFIG_INVALID for a file that cannot be read or
 *   parsed; CONFIG_CHANGED when a file changed while it was being rewritten.
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
  const planned: Array<{ plan: FilePlan; bytes: Uint8Array }> = [];
  const seen = new Set<string>();
  for (const file of selected.paths) {
    const resolved = path.resolve(file);
    if (seen.has(resolved)) continue;
    seen.add(resolved);
    const bytes = await readIfPresent(file, selected.required);
    if (bytes === undefined) continue;
    const plan = planFile(bytes, file, options.mode, ctx);
    if (plan !== undefined) planned.push({ plan, bytes });
  }
  const results: FileResult[] = [];
  for (const { plan, bytes } of planned) {
    if (options.dryRun === true || plan.after === plan.before) results.push({ plan });
    else results.push({ plan, backup: await writeConfig(plan.file, bytes, plan.after) });
  }
  return results;
}
