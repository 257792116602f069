import { timestamp } from "../../core/lock/lock.js";
import { keptConfigs } from "../../core/lock/lock-configs.js";
import { readLock, writeLock } from "../../io/lock-file.js";
import { checkPinTargets, recordSnapshots } from "../../io/snapshot-record.js";
import { parseCommandArgs } from "../args.js";
import { knownServers, LOCK_HELP, LOCK_OPTIONS, lockPath, warner } from "../common.js";
import { EXIT } from "../exit-code.js";
import type { Io } from "../io.js";
import { displayName } from "../render/style.js";
import { ContractpinError } from "../../core/errors.js";

export const help = `Usage: contractpin remove NAME [options]

Drops a server from the lock, and its contracts from the snapshots beside it.

Options:
${LOCK_HELP}
  --help               show this help

Exit codes: 0 removed; 2 unknown server, missing or corrupt lock, bad arguments.

Examples:
  contractpin remove memory
  contractpin remove memory --lock ci/contractpin.lock
`;

export async function run(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommandArgs("remove", args, { ...LOCK_OPTIONS }, 1);
  const lockFile = await lockPath(values, io);
  const name = positionals[0];
  if (name === undefined)
    throw new ContractpinError(
      "USAGE",
      "remove needs a server NAME (see 'contractpin remove --help')",
    );
  const previous = await readLock(lockFile);
  knownServers([name], previous.servers, lockFile);
  checkPinTargets(lockFile, true);
  const servers = Object.fromEntries(Object.entries(previous.servers).filter(([n]) => n !== name));
  await writeLock(
    lockFile,
    { generated_at: timestamp(new Date()), servers, ...keptConfigs(previous, servers) },
    previous,
    {
      signal: io.signal,
    },
  );
  await recordSnapshots(lockFile, await readLock(lockFile), new Map(), {
    create: false,
    removed: [name],
    warn: warner(io),
  });
  await io.out(`removed ${displayName(name)} from ${lockFile}\n`);
  return EXIT.OK;
}
