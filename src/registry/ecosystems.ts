import type { Ecosystem } from "../core/source/package-runner.js";
import { imageRegistry } from "./image-registry.js";
import { npmRegistry } from "./npm-registry.js";
import { pipxRegistry, uvRegistry } from "./python-registry.js";
import type { Registry } from "./registry-types.js";

export type { LookupOptions, PackageVersions, Registry, ServedArtifact } from "./registry-types.js";

/** The registries contractpin can ask; an ecosystem not here is "not checked", never "up to date". */
export const REGISTRIES: Partial<Record<Ecosystem, Registry>> = {
  npm: npmRegistry,
  python: uvRegistry,
  pipx: pipxRegistry,
  docker: imageRegistry,
};
