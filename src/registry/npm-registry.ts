import { homedir } from "node:os";
import type { Registry } from "./registry-types.js";
import { exactVersion } from "./fetch-failure.js";
import { npmIntegrity, npmVersions } from "./npm.js";
import { loadNpmConfig } from "./npmrc.js";
import { compareVersions, EXACT_VERSION } from "./versions.js";

/** npm runners (npx, npm exec, pnpm dlx, yarn dlx, bunx): npm's configuration, as npm layers it. */
export const npmRegistry: Registry = {
  versions(pkg, spawn, options) {
    const config = loadNpmConfig(spawn.cwd, spawn.env, spawn.env["HOME"] ?? homedir());
    return npmVersions(pkg.name, config, {
      ...(pkg.registry === undefined ? {} : { registry: pkg.registry }),
      ...options,
    });
  },
  async artifact(pkg, spawn, options) {
    const version = exactVersion(pkg);
    const config = loadNpmConfig(spawn.cwd, spawn.env, spawn.env["HOME"] ?? homedir());
    const { registry, integrity } = await npmIntegrity(pkg.name, version, config, {
      ...(pkg.registry === undefined ? {} : { registry: pkg.registry }),
      ...options,
    });
    return { registry, artifact: { kind: "npm", package: pkg.name, version, integrity } };
  },
  compare: compareVersions,
  isVersion: (version) => EXACT_VERSION.test(version),
};
