/**
 * What a registry of one ecosystem answers and needs, in a leaf of its own:
 * the table (ecosystems.ts) and each registry's client use these shapes.
 */
import type { RunnerPackage } from "../core/source/package-runner.js";
import type { Artifact } from "../core/source/artifact.js";
import type { SpawnSpec } from "../sources/live/spawn-server.js";

/** What a registry says of a package: the version a runner takes by default, and every version offered. */
export interface PackageVersions {
  /** The registry asked, for the report (never with credentials). */
  registry: string;
  latest: string;
  versions: string[];
}

/** What a registry serves for a pinned version, and the registry asked (shown without a credential). */
export interface ServedArtifact {
  registry: string;
  artifact: Artifact;
}

/** How a lookup is bounded. */
export interface LookupOptions {
  timeoutMs: number;
  signal?: AbortSignal;
}

/**
 * One ecosystem's registry, asked the way its own client asks: the
 * configuration is read with the environment, working directory and
 * arguments the server is started with (`spawn`: the command with its
 * references expanded, the env it gets, its cwd), so the registry and
 * credential are the ones the runner will use when the server starts.
 */
export interface Registry {
  /**
   * The versions the registry offers for `pkg`.
   * @throws ContractpinError REGISTRY_UNREACHABLE, with a one-line reason that holds no credential.
   */
  versions(pkg: RunnerPackage, spawn: SpawnSpec, options: LookupOptions): Promise<PackageVersions>;
  /**
   * What the registry serves for `pkg` at its exact version (SPEC.md 11.2),
   * asked with the same configuration and credential as {@link versions}.
   * @throws ContractpinError REGISTRY_UNREACHABLE, one line, no credential;
   *   also when the package pins no exact version or the registry does not
   *   serve that version (fail closed).
   */
  artifact(pkg: RunnerPackage, spawn: SpawnSpec, options: LookupOptions): Promise<ServedArtifact>;
  /** Orders two versions this registry offers: negative when a comes first. */
  compare(a: string, b: string): number;
  /** Whether a version may be put into a command line (`upgrade --to`). */
  isVersion(version: string): boolean;
}
