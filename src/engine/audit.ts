import type { Contract } from "../core/contract/contract.js";
import { ContractpinError } from "../core/errors.js";
import type { Finding } from "../core/findings/finding.js";
import { firstSightFindings } from "../core/findings/first-sight.js";
import { SURFACE_KINDS, type PartId } from "../core/contract/kinds.js";
import { readLock } from "../io/lock-file.js";
import type { LookupContext } from "./outdated.js";
import { runnerFindings } from "./runner-review.js";
import { pinnedSurface } from "../io/snapshot-surface.js";
import { FALLBACK, readSnapshot, snapshotEntry, snapshotPath } from "../io/snapshot-file.js";

/** One server of the lock, audited: how many tools it pins, and what the rules found. */
export interface ServerAudit {
  name: string;
  tools: number;
  /** What else it pins and the rules read: each surface kind's item count, and the instructions (1 or 0). */
  surface?: Partial<Record<Exclude<PartId, "tools">, number>>;
  findings: Finding[];
}

/** What `contractpin audit` read, and what it found. */
export interface AuditRun {
  lockPath: string;
  snapshotPath: string;
  servers: ServerAudit[];
}

/**
 * Runs the rules, offline, over the contracts the lock pins as its snapshots
 * keep them (SPEC.md section 9): for each server, what they would find if it
 * had been empty before (first-sight findings). Servers sorted by name.
 *
 * Fails closed: a lock that cannot be read is its own error; no snapshot file,
 * one that cannot be used, or a pinned tool without an entry whose digest is
 * the lock's (stale, missing, edited) is AUDIT_INCOMPLETE (exit 2), since a
 * tool that cannot be read cannot be said to be clean; the same for each
 * pinned part of a server's surface (instructions, prompts, templates,
 * resources), which the rules read as they read tools. A lock that pins no
 * servers is LOCK_EMPTY (exit 2).
 *
 * A server that runs a package through a package runner without an exact
 * version is a `package-runner-unpinned` finding (runner-review.ts): only
 * for those is a registry asked (`lookup`), for the version that would run now.
 */
export async function runAudit(
  lockPath: string,
  lookup: { ctx: LookupContext; concurrency: number },
): Promise<AuditRun> {
  const lock = await readLock(lockPath);
  const path = snapshotPath(lockPath);
  const read = await readSnapshot(path);
  const names = Object.keys(lock.servers).sort();
  // Auditing nothing is not a pass, as verifying nothing is not.
  if (names.length === 0)
    throw new ContractpinError("LOCK_EMPTY", `${lockPath} pins no servers: nothing to audit`);
  const pinnedTools = names.reduce((n, s) => n + Object.keys(lock.servers[s]!.tools).length, 0);
  const pinsSurface = names.some((s) => lock.servers[s]!.surface !== undefined);
  if (read.snapshot === undefined && (pinnedTools > 0 || pinsSurface)) {
    const why = read.warning?.replace(FALLBACK, "") ?? `${path}: no contract snapshots`;
    throw incomplete(`${why}; nothing to audit the lock's tools with`);
  }
  const servers: ServerAudit[] = [];
  const missing: string[] = [];
  for (const name of names) {
    const { tools, surface } = lock.servers[name]!;
    const contracts: Contract[] = [];
    for (const tool of Object.keys(tools).sort()) {
      const entry = snapshotEntry(read.snapshot, name, tool, tools[tool]!.digest, path);
      if (entry.contract === undefined) missing.push(`${name}/${tool}`);
      else contracts.push(entry.contract);
    }
    // The surface too: instructions, prompts and templates are read by the model as tools are.
    const pinned =
      surface === undefined ? undefined : pinnedSurface(read.snapshot?.surfaces?.[name], surface);
    if (pinned !== undefined) for (const part of pinned.missing) missing.push(`${name}/${part}`);
    const findings = firstSightFindings(name, {
      contracts,
      ...(pinned === undefined ? {} : { surfaceContracts: pinned.contracts }),
    });
    const audited: ServerAudit = { name, tools: contracts.length, findings };
    if (pinned !== undefined) {
      const { instructions, ...lists } = pinned.contracts;
      audited.surface = { instructions: instructions === undefined ? 0 : 1 };
      for (const kind of SURFACE_KINDS)
        if (lists[kind.id] !== undefined) audited.surface[kind.id] = lists[kind.id]!.length;
    }
    servers.push(audited);
  }
  const runners = await runnerFindings(names, lock.servers, lookup.ctx, lookup.concurrency);
  for (const server of servers) {
    const runner = runners.get(server.name);
    if (runner !== undefined) server.findings.unshift(runner);
  }
  if (missing.length > 0) {
    const some = missing.slice(0, 3).map((t) => JSON.stringify(t));
    const more = missing.length > 3 ? ` and ${missing.length - 3} more` : "";
    throw incomplete(
      `${path}: no snapshot matching the lock for ${some.join(", ")}${more} (stale, missing or edited); cannot audit them`,
    );
  }
  return { lockPath, snapshotPath: path, servers };
}

function incomplete(message: string): ContractpinError {
  return new ContractpinError(
    "AUDIT_INCOMPLETE",
    `${message}; re-pin with 'contractpin update' to write them`,
  );
}
