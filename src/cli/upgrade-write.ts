import { homedir } from "node:os";
import { keptConfigs } from "../core/lock/lock-configs.js";
import { dirname, resolve } from "node:path";
import { ContractpinError } from "../core/errors.js";
import { setMember } from "../core/json/json-value.js";
import { timestamp, type Lock, type PinnedServer } from "../core/lock/lock.js";
import type { ServerSource } from "../core/source/server-source.js";
import { pinAll } from "../engine/repin.js";
import type { UpgradeCandidate } from "../engine/upgrade.js";
import { readLock, writeLock } from "../io/lock-file.js";
import { firstSightFindings } from "../core/findings/first-sight.js";
import { runnerFindings } from "../engine/runner-review.js";
import { renderPinnedFindings } from "./render/audit-text.js";
import { recordSnapshots } from "../io/snapshot-record.js";
import type { ReadContext } from "../sources/read-tools.js";
import { warner, withArtifacts } from "./common.js";
import type { Io } from "./io.js";
import { displayName, sanitizeLine } from "./render/style.js";

/** How the upgrade is written. */
export interface UpgradeWrite {
  ctx: ReadContext;
  concurrency: number;
  repeat: number;
  snapshot: boolean;
  /** Config files named with --config. */
  configs: string[] | undefined;
  user: boolean;
  /** --artifacts: record each candidate's artifact (a server that records one always does). */
  artifacts: boolean;
  /** The --lock option given, repeated in the commands the review suggests. */
  lock: string | undefined;
  io: Io;
}

/**
 * Prepares taking the candidates, writing nothing: pins each through the
 * engine's pin path (so the lock and snapshots hold whatever the engine
 * pins), refuses when a pin differs from the contract the report shows (a
 * server that changed between the reads), and plans the bump of each client
 * config entry that defines what the lock pinned. The function it returns
 * writes the lock, its snapshots and those configs.
 *
 * @throws ContractpinError SERVER_UNREADABLE (exit 1, nothing written) when a
 *   read fails or differs from the one reported; a config that cannot be
 *   bumped (exit 2, nothing written).
 */
export async function prepareUpgrade(
  lockFile: string,
  lock: Lock,
  candidates: readonly UpgradeCandidate[],
  w: UpgradeWrite,
): Promise<() => Promise<void>> {
  // The pin keeps its scope: tools only, or its surface (resources as pinned).
  const requests = candidates.map((c) => {
    const surface = lock.servers[c.name]?.surface;
    const scope = surface === undefined ? null : { resources: surface.resources !== undefined };
    // A pin that records its artifact records the new version's.
    const artifact = lock.servers[c.name]?.artifact !== undefined;
    return { name: c.name, source: c.source, scope, ...(artifact ? { artifact } : {}) };
  });
  const asked = await withArtifacts(
    requests.filter((r) => r.artifact !== true),
    w.artifacts,
    w.io,
  );
  const all = [...requests.filter((r) => r.artifact === true), ...asked];
  const pinned = await pinAll(all, w.ctx, w.concurrency, w.repeat);
  for (const c of candidates) {
    if (pinned.get(c.name)!.server.digest !== c.verified.finding.liveDigest) {
      throw new ContractpinError(
        "SERVER_UNREADABLE",
        `server ${c.name}: ${c.pkg.name}@${c.to} served other tools when it was read again to be pinned; nothing was written`,
      );
    }
  }
  // The configs are planned before anything is written: a config that cannot be bumped stops the upgrade.
  const configs = await planConfigs(lock, candidates, w, lockFile);
  return () => writeUpgrade(lockFile, lock, pinned, configs, w);
}

async function writeUpgrade(
  lockFile: string,
  lock: Lock,
  pinned: Awaited<ReturnType<typeof pinAll>>,
  configs: Awaited<ReturnType<typeof planConfigs>>,
  w: UpgradeWrite,
): Promise<void> {
  const servers: Record<string, PinnedServer> = { ...lock.servers };
  for (const [name, { server }] of pinned) setMember(servers, name, server);
  await writeLock(
    lockFile,
    { generated_at: timestamp(new Date()), servers, ...keptConfigs(lock, servers) },
    lock,
    {
      signal: w.io.signal,
    },
  );
  if (w.snapshot) {
    await recordSnapshots(lockFile, await readLock(lockFile), pinned, {
      create: true,
      warn: warner(w.io),
    });
  }
  const { writeConfig } = await import("../config/wrap/write-config.js");
  for (const { plan, bytes } of configs) {
    if (plan.after !== plan.before) await writeConfig(plan.file, bytes, plan.after);
    // The file's name and the reasons are a repository's text, shown as wrap shows them.
    const file = sanitizeLine(plan.file);
    for (const name of plan.changed) await w.io.out(`bumped ${displayName(name)} in ${file}\n`);
    for (const left of plan.left) {
      await w.io.err(
        `contractpin: warning: left ${displayName(left.name)} in ${file}: ${sanitizeLine(left.reason)}\n`,
      );
    }
  }
  await w.io.out(`wrote ${lockFile}\n`);
  // What it pinned, reviewed as add, init and update review it (an exact
  // version asks no registry; `--to latest` of an image is no exact one).
  const runners = await runnerFindings([...pinned.keys()], servers, w.ctx, w.concurrency);
  for (const [name, read] of pinned) {
    const runner = runners.get(name);
    const findings = [...(runner === undefined ? [] : [runner]), ...firstSightFindings(name, read)];
    await w.io.out(renderPinnedFindings(name, findings, w.io.color, w.lock));
  }
}

async function planConfigs(
  lock: Lock,
  candidates: readonly UpgradeCandidate[],
  w: UpgradeWrite,
  lockFile: string,
) {
  const { readIfPresent, selectConfigs } = await import("../config/discover.js");
  const { planBump } = await import("../config/wrap/bump-version.js");
  const { configScope, realConfig } = await import("../config/wrap/config-scope.js");
  const projectDir = process.cwd();
  const home = homedir();
  // The file rules of wrap: a project config whose real file is a user-level one, or
  // outside the project, is refused without --user; the real file is the one written.
  const scope = {
    ...configScope(projectDir, home, w.user, "upgrade --write"),
    nameFlag: "--config",
  };
  const discovered = selectConfigs(undefined, w.user, { projectDir, home });
  const files = [
    ...(w.configs ?? []).map((path) => ({ path, required: true })),
    ...discovered.paths.map((path) => ({ path, required: false })),
  ];
  const after: Record<string, ServerSource> = {};
  const args: Record<string, { from: string; to: string }> = {};
  for (const c of candidates) {
    const from = (lock.servers[c.name] as { command: string[] }).command[c.pkg.argIndex]!;
    const to = (c.source as { command: string[] }).command[c.pkg.argIndex]!;
    after[c.name] = c.source;
    args[c.name] = { from, to };
  }
  const seen = new Set<string>();
  const plans = [];
  for (const { path, required } of files) {
    const real = realConfig(path, { ...scope, named: required });
    if (seen.has(resolve(real))) continue;
    seen.add(resolve(real));
    const bytes = await readIfPresent(real, required);
    if (bytes === undefined) continue;
    const plan = planBump(
      bytes,
      path,
      { before: lock, after, args },
      // The lock's directory: init writes ${workspaceFolder} relative to it.
      { projectDir, home, required, lockDir: dirname(resolve(lockFile)) },
    );
    if (plan === undefined) continue;
    if (resolve(real) !== resolve(path)) plan.file = real;
    plans.push({ plan, bytes });
  }
  return plans;
}
