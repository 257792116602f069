import { homedir } from "node:os";
import { runnerOptions } from "../config/package-runner.js";
import type { Registry } from "./ecosystems.js";
import { compareVersionText, isPep440Version } from "./pep440.js";
import { pipIndexPlan } from "./pip-index.js";
import { pythonVersions } from "./pypi.js";
import { uvIndexPlan } from "./uv-index.js";

/** uvx and uv tool run: the indexes uv's options, variables and user/system uv.toml name. */
export const uvRegistry: Registry = {
  versions(pkg, spawn, options) {
    const plan = uvIndexPlan(
      spawn,
      runnerOptions([spawn.command, ...spawn.args]),
      spawn.env["HOME"] ?? homedir(),
    );
    return pythonVersions(pkg.name, plan, options);
  },
  compare: compareVersionText,
  isVersion: isPep440Version,
};

/** pipx run: the indexes pip's command line (pipx's --index-url, --pip-args), PIP_* and pip.conf name. */
export const pipxRegistry: Registry = {
  versions(pkg, spawn, options) {
    const plan = pipIndexPlan(
      spawn,
      runnerOptions([spawn.command, ...spawn.args]),
      spawn.env["HOME"] ?? homedir(),
    );
    return pythonVersions(pkg.name, plan, options);
  },
  compare: compareVersionText,
  isVersion: isPep440Version,
};
