import { existsSync } from "node:fs";
import { basename } from "node:path";
import type { Contract } from "../core/contract/contract.js";
import { digestToolContracts, type ServerDigests } from "../core/contract/digest.js";
import { ContractpinError, isContractpinError } from "../core/errors.js";
import { getMember, isJsonObject, type JsonValue } from "../core/json/json-value.js";
import { MAX_LOCK_BYTES } from "../core/limits.js";
import type { PinnedServer } from "../core/lock/lock.js";
import { parseJson } from "../core/json/strict-json.js";
import { positionOf } from "../core/json/text-position.js";
import { isSurfaceDump, surfaceFromDump } from "../core/surface/dump.js";
import {
  digestSurface,
  withSurfaceDigests,
  type SurfaceContracts,
} from "../core/surface/surface.js";
import { toolsFromDump } from "../core/contract/tools-list.js";
import { lockFromBytes } from "./lock-file.js";
import { readInput } from "./read-input.js";
import { readSnapshotEntries, type WantedEntry } from "./snapshot-entries.js";
import { snapshotPath, type SnapshotEntry } from "./snapshot-file.js";

/**
 * One side of `contractpin diff`: a lock (with the contract snapshots beside
 * it, when there are any) or a tools/list dump of one server. Either way, per
 * server, the tool digests, and a way to get a tool's contract when known.
 */
export interface DiffSide {
  /** The path as given (`-` for standard input). */
  path: string;
  kind: "lock" | "dump";
  /** Per server name; a dump holds one server, named by the caller. */
  servers: Map<string, SideServer>;
  /** For a lock: where its snapshots are (none for a lock read from standard input without --old-contracts). */
  snapshots?: string;
}

/** One server of a side. */
export interface SideServer {
  digests: ServerDigests;
  /** For a lock: the server as pinned, source included. */
  pinned?: PinnedServer;
  /** For a dump: every tool's contract by name. */
  contracts?: Map<string, Contract>;
  /** For a surface dump: the surface's contracts (SPEC.md 10). */
  surfaceContracts?: SurfaceContracts;
}

/** The name a dump's one server takes until the caller pairs it with a lock's. */
export const DUMP_SERVER = "";

/**
 * Reads one side: a lock (a JSON object with a `contractpin` member, checked
 * as `readLock` checks it) or a tools/list dump in any form `digest` accepts.
 * A lock's snapshots are read from `contractsPath`, else from beside it
 * (`X.lock` gives `X.contracts.json`); standard input has none beside it.
 *
 * @throws ContractpinError (exit 2) naming the path, for anything that is neither.
 */
export async function readDiffSide(path: string, contractsPath?: string): Promise<DiffSide> {
  const bytes = await readInput(path, MAX_LOCK_BYTES);
  let value: JsonValue;
  try {
    value = parseJson(bytes);
  } catch (err) {
    if (!isContractpinError(err)) throw err;
    throw new ContractpinError(
      "DUMP_INVALID",
      `${path}: is neither a lock nor a tools/list dump: ${err.message}${positionOf(err.message, bytes)}`,
      { cause: err },
    );
  }
  if (isJsonObject(value) && getMember(value, "contractpin") !== undefined) {
    const lock = lockFromBytes(path, bytes, value);
    const servers = new Map<string, SideServer>();
    for (const [name, pinned] of Object.entries(lock.servers)) {
      servers.set(name, { digests: pinned, pinned });
    }
    const sidecar = contractsPath ?? (path === "-" ? undefined : snapshotPath(path));
    if (contractsPath !== undefined && !existsSync(contractsPath)) {
      throw new ContractpinError(
        "INPUT_UNREADABLE",
        `${contractsPath}: cannot read the contract snapshots: no such file`,
      );
    }
    return {
      path,
      kind: "lock",
      servers,
      ...(sidecar === undefined ? {} : { snapshots: sidecar }),
    };
  }
  if (contractsPath !== undefined) {
    throw new ContractpinError(
      "USAGE",
      `${path} is a tools/list dump, which holds its own contracts: snapshots (--old-contracts, --new-contracts) go with a lock`,
    );
  }
  let digests: ReturnType<typeof digestToolContracts>;
  let surface: ReturnType<typeof digestSurface> | undefined;
  try {
    if (isSurfaceDump(value)) {
      // A surface dump: its whole surface, resources as dumped (SPEC.md 10.3).
      const read = surfaceFromDump(value);
      digests = digestToolContracts(read.tools);
      surface = digestSurface(read.surface);
    } else {
      digests = digestToolContracts(toolsFromDump(value));
    }
  } catch (err) {
    if (!isContractpinError(err)) throw err;
    throw new ContractpinError(err.code, `${path}: ${err.message}`, { cause: err });
  }
  const contracts = new Map(digests.contracts.map((c) => [c.name, c]));
  const server: SideServer = {
    digests: withSurfaceDigests(digests.digests, surface?.digests),
    contracts,
  };
  if (surface !== undefined) server.surfaceContracts = surface.contracts;
  return { path, kind: "dump", servers: new Map([[DUMP_SERVER, server]]) };
}

/**
 * The contracts of `wanted` tools on `side`: from a dump, the tools
 * themselves; from a lock, its snapshot entries whose digests are the lock's
 * (readSnapshotEntries). For a lock without usable snapshots, `warning` says
 * so once; `entries` carry the per-tool warnings.
 */
export async function sideContracts(
  side: DiffSide,
  wanted: readonly WantedEntry[],
): Promise<{ warning?: string; entries: SnapshotEntry[] }> {
  if (side.kind === "dump") {
    return {
      entries: wanted.map((w) => {
        const contract = side.servers.get(w.server)?.contracts?.get(w.tool);
        return contract === undefined ? {} : { contract };
      }),
    };
  }
  const none = (why: string) => ({
    warning: `${side.path}: ${why}; the changed fields are unknown (name them with --old-contracts or --new-contracts)`,
    entries: wanted.map(() => ({})),
  });
  if (side.snapshots === undefined) {
    return none("a lock read from standard input has no contract snapshots beside it");
  }
  if (wanted.length === 0) return { entries: [] };
  const read = await readSnapshotEntries(side.snapshots, wanted);
  if (read.warning !== undefined) return { warning: read.warning, entries: read.entries };
  if (!read.file) return none(`no contract snapshots at ${side.snapshots}`);
  return { entries: read.entries };
}

/** A short name for a dump's server when neither side names it: the file's name. */
export function dumpServerName(path: string): string {
  return path === "-" ? "stdin" : basename(path);
}
