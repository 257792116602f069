// One seed for every fast-check property of a test file, so that a run is
// repeatable: the same random cases on every machine and every run. It is
// printed with the file's results. To explore other cases, set FC_SEED to a
// number, or to "random" for a new one (printed, so a failure can be replayed
// with it); a failing case found that way becomes a fixed case in its test file.
import fc from "fast-check";

const DEFAULT_SEED = 20261201;

function seedFrom(given: string | undefined): number {
  if (given === undefined || given === "") return DEFAULT_SEED;
  if (given === "random") return Date.now() ^ (Math.random() * 0x100000000);
  const seed = Number(given);
  if (!Number.isSafeInteger(seed))
    throw new Error(`FC_SEED must be an integer or "random", not ${given}`);
  return seed;
}

export const FC_SEED = seedFrom(process.env["FC_SEED"]);
fc.configureGlobal({ seed: FC_SEED });
console.log(`fast-check seed ${FC_SEED} (FC_SEED=<number>|random to explore)`);
