import { ContractpinError } from "../../core/errors.js";
import { timestamp, type Lock } from "../../core/lock.js";
import { repinAll } from "../../engine/repin.js";
import { readLockIfExists, writeLock } from "../../io/lock-file.js";
import { parseCommandArgs } from "../args.js";
import { LOCK_HELP, LOCK_OPTIONS, READ_HELP, READ_OPTIONS, readContext } from "../common.js";
import { EXIT } from "../exit-code.js";
import type { Io } from "../io.js";
import { renderPinned } from "../render/pin-text.js";

export const help = `Usage: contractpin init [--force] [options]

Pins every server defined in the lock, writing a fresh lock. Without a lock,
creates an empty one for 'contractpin add' to fill.

An existing lock is never overwritten without --force (exit 2). With --force,
every server in it is re-read and re-pinned from its definition: this is how
a legitimate change (a new tool, a changed description) is accepted. If any
server cannot be read, nothing is written (exit 1).

Options:
  --force              overwrite an existing lock
${LOCK_HELP}
${READ_HELP}
  --help               show this help

Exit codes: 0 written; 1 a server could not be read; 2 the lock exists (without
--force), is corrupt, or bad arguments.
`;

export async function run(args: string[], io: Io): Promise<number> {
  const { values } = parseCommandArgs(
    "init",
    args,
    { ...LOCK_OPTIONS, ...READ_OPTIONS, force: { type: "boolean" } },
    0,
  );
  const { ctx, concurrency } = readContext(values.lock, values, io.signal);
  const previous = await readLockIfExists(values.lock);
  if (previous !== undefined && values.force !== true) {
    throw new ContractpinError(
      "LOCK_EXISTS",
      `${values.lock} already exists; 'contractpin init --force' re-pins every server in it, 'contractpin update' re-pins some`,
    );
  }
  const names = Object.keys(previous?.servers ?? {}).sort();
  // Object.fromEntries defines own properties, so a server named __proto__ survives.
  const servers = Object.fromEntries(
    await repinAll(names, previous?.servers ?? {}, ctx, concurrency),
  );
  const lock: Lock = { generated_at: timestamp(new Date()), servers };
  await writeLock(values.lock, lock, previous);
  if (names.length === 0) {
    await io.out(
      `created ${values.lock} with no servers; pin one with 'contractpin add NAME ...'\n`,
    );
  } else {
    for (const name of names)
      await io.out(renderPinned("pinned", name, lock.servers[name]!, values.lock));
  }
  return EXIT.OK;
}
