import { homedir } from "node:os";
import { runnerOptions } from "../core/source/package-runner.js";
import type { SpawnSpec } from "../sources/live/spawn-server.js";
import type { Registry } from "./registry-types.js";
import { compareVersionText, isPep440Version } from "./pep440.js";
import { pipIndexPlan } from "./pip-index.js";
import { exactVersion } from "./fetch-failure.js";
import { pythonFiles, pythonVersions, type IndexPlan } from "./pypi.js";
import { uvIndexPlan } from "./uv-index.js";

type Planner = (spawn: SpawnSpec, runnerOptions: readonly string[], home: string) => IndexPlan;

/** A Python runner's registry: the indexes `plan` says its client asks, PEP 440 versions. */
function pythonRegistry(plan: Planner): Registry {
  return {
    versions(pkg, spawn, options) {
      const options_ = runnerOptions([spawn.command, ...spawn.args]);
      const indexes = plan(spawn, options_, spawn.env["HOME"] ?? homedir());
      return pythonVersions(pkg.name, indexes, options);
    },
    async artifact(pkg, spawn, options) {
      const version = exactVersion(pkg);
      const options_ = runnerOptions([spawn.command, ...spawn.args]);
      const indexes = plan(spawn, options_, spawn.env["HOME"] ?? homedir());
      const { registry, files } = await pythonFiles(pkg.name, version, indexes, options);
      return { registry, artifact: { kind: "python", package: pkg.name, version, files } };
    },
    compare: compareVersionText,
    isVersion: isPep440Version,
  };
}

/** uvx and uv tool run: the indexes uv's options, variables and user/system uv.toml name. */
export const uvRegistry = pythonRegistry(uvIndexPlan);

/** pipx run: the indexes pip's command line (pipx's --index-url, --pip-args), PIP_* and pip.conf name. */
export const pipxRegistry = pythonRegistry(pipIndexPlan);
