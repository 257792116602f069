import { runnerPackage, type RunnerPackage } from "../core/source/package-runner.js";
import { setMember } from "../core/json/json-value.js";
import type { PinnedServer } from "../core/lock/lock.js";
import { REFERENCE } from "../core/source/secrets.js";
import type { StdioSource } from "../core/source/server-source.js";
import { failureLines } from "./failure.js";
import { mapConcurrent } from "./concurrency.js";
import {
  REGISTRIES,
  type LookupOptions,
  type PackageVersions,
  type Registry,
} from "../registry/ecosystems.js";
import type { SpawnSpec } from "../sources/live/spawn-server.js";
import { stdioSpawnSpec } from "../sources/live/spawn-spec.js";

/** What `outdated` found for one server. */
export type OutdatedEntry = { name: string } & (
  | { status: "outdated"; pkg: RunnerPackage; current: string; latest: string; registry: string }
  | { status: "current"; pkg: RunnerPackage; current: string; latest: string; registry: string }
  | { status: "unpinned"; pkg: RunnerPackage; latest: string; registry: string }
  /** The registry could not be asked: never "up to date". */
  | { status: "unreachable"; pkg: RunnerPackage; reason: string }
  /** A runner whose registry contractpin cannot ask yet: not checked, never "up to date". */
  | { status: "unsupported"; pkg: RunnerPackage }
  /**
   * npx or npm exec told not to install (`npx --no pkg`): it runs what is
   * installed, never a registry's newest, so no registry is asked.
   */
  | { status: "installed"; pkg: RunnerPackage }
  /** No package runner (an HTTP server, a dump, a plain command): no version to compare. */
  | { status: "no-package" }
);

/** How registries are asked. */
export interface LookupContext {
  lockDir: string;
  env: Readonly<Record<string, string | undefined>>;
  timeoutMs: number;
  signal?: AbortSignal;
}

/** The package a pinned server runs through a package runner, if any. */
export function serverPackage(server: PinnedServer): RunnerPackage | undefined {
  return server.transport === "stdio" ? runnerPackage(server.command) : undefined;
}

/** The registry a package's runner takes it from, or undefined when contractpin cannot ask it. */
export function registryOf(pkg: RunnerPackage): Registry | undefined {
  return REGISTRIES[pkg.ecosystem];
}

/**
 * Asks a package's registry for the versions it offers, as the runner itself
 * would when the server starts: the registry's configuration is read with the
 * command, environment and working directory the server is started with
 * (stdioSpawnSpec: the server's own env entries, and only the few variables
 * every server inherits, HOME among them), so the registry, scope and
 * credential are the ones the runner will use, not contractpin's own.
 */
export async function lookupVersions(
  pkg: RunnerPackage,
  server: PinnedServer,
  ctx: LookupContext,
): Promise<PackageVersions> {
  if (server.transport !== "stdio") throw new Error("lookupVersions: not a stdio server");
  const registry = registryOf(pkg);
  if (registry === undefined) throw new Error(`lookupVersions: no registry for ${pkg.ecosystem}`);
  return registry.versions(pkg, lookupSpawn(server, ctx), lookupOptions(ctx));
}

/** What a server's runner is started with, as a registry look-up reads its configuration. */
export function lookupSpawn(server: StdioSource, ctx: LookupContext): SpawnSpec {
  return stdioSpawnSpec(lookupSource(server, ctx.env), ctx);
}

/** A look-up's deadline and interrupt. */
export function lookupOptions(ctx: LookupContext): LookupOptions {
  return { timeoutMs: ctx.timeoutMs, ...(ctx.signal === undefined ? {} : { signal: ctx.signal }) };
}

/**
 * Variables a package runner or its registry configuration reads by name
 * (npm_config_*, uv's and pip's settings, config folders, proxies,
 * certificates): an env entry of one of them is needed exactly as written.
 */
const RUNNER_READS =
  /^(?:npm_config_|uv_|pip_|xdg_|docker_|registry_auth_file$|netrc$|home$|path$|ssl_cert_|node_extra_ca_certs$|requests_ca_bundle$|(?:https?|no|all)_proxy$)/i;

/**
 * The definition a registry is asked with: the server's own, less each env
 * entry that refers to a variable that is not set, unless a runner reads that
 * entry by name. Asking a registry needs no server secret (an API key), so its
 * absence refuses nothing; an entry that chooses the registry or its
 * credential still refuses the look-up when unset (ENV_UNSET), never asking
 * another registry in its place.
 */
function lookupSource(
  server: StdioSource,
  env: Readonly<Record<string, string | undefined>>,
): StdioSource {
  if (server.env === undefined) return server;
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(server.env)) {
    const unset = [...value.matchAll(REFERENCE)].some((m) => !env[m[1]!]);
    if (!unset || RUNNER_READS.test(name)) setMember(kept, name, value);
  }
  return { ...server, env: kept };
}

/**
 * The newest version each named server's registry offers, all registries
 * asked at once (up to `concurrency`). A runner whose registry is not in
 * REGISTRIES is `unsupported` (listed, and failing closed).
 */
export async function findOutdated(
  names: readonly string[],
  servers: Readonly<Record<string, PinnedServer>>,
  ctx: LookupContext,
  concurrency: number,
): Promise<OutdatedEntry[]> {
  return mapConcurrent(names, concurrency, async (name): Promise<OutdatedEntry> => {
    const server = servers[name]!;
    const pkg = serverPackage(server);
    if (pkg === undefined) return { name, status: "no-package" };
    if (pkg.installed) return { name, status: "installed", pkg };
    const asked = registryOf(pkg);
    if (asked === undefined) return { name, status: "unsupported", pkg };
    let found: PackageVersions;
    try {
      found = await lookupVersions(pkg, server, ctx);
    } catch (err) {
      ctx.signal?.throwIfAborted();
      return { name, status: "unreachable", pkg, reason: failureLines(err).message };
    }
    const { latest, registry } = found;
    if (pkg.version === undefined) return { name, status: "unpinned", pkg, latest, registry };
    const status = asked.compare(latest, pkg.version) > 0 ? "outdated" : "current";
    return { name, status, pkg, current: pkg.version, latest, registry };
  });
}

/** 1 when a server has a newer version, or its registry could not be asked (fail closed); else 0. */
export function outdatedExitCode(entries: readonly OutdatedEntry[]): 0 | 1 {
  const failing = new Set(["outdated", "unreachable", "unsupported"]);
  return entries.some((e) => failing.has(e.status)) ? 1 : 0;
}
