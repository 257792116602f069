import { lstatSync, readFileSync } from "node:fs";
import { ContractpinError } from "../core/errors.js";
import { visibleText } from "../core/visible-text.js";
import { writeReportAtomic } from "../io/atomic-write.js";
import { checkoutBases } from "../io/write-target.js";

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

// Writes to one file from several servers' reads go one at a time, each on top of the last.
let queue: Promise<unknown> = Promise.resolve();

/**
 * Writes `NAME=value` into the dotenv file `file` (`--oauth-state-out`): the
 * line for NAME replaced, or added, every other line kept; mode 0600, written
 * atomically and never through a symbolic link, at the file or in a folder of
 * its path in the checkout (writeReportAtomic in src/io/atomic-write.ts). A
 * rotated refresh token goes here, for a later CI step to store (`gh secret
 * set -f FILE`). The value is never shown.
 *
 * @throws ContractpinError AUTH_FAILED when it cannot be written (the caller
 *   must then not use the token it came with).
 */
export function writeOAuthState(file: string, name: string, value: string): Promise<void> {
  const run = queue.then(() => write(file, name, value));
  queue = run.catch(() => undefined);
  return run;
}

async function write(file: string, name: string, value: string): Promise<void> {
  const fail = (why: string): never => {
    throw new ContractpinError(
      "AUTH_FAILED",
      `the rotated refresh token for \${${name}} was not written to --oauth-state-out ${visibleText(file)}: ${why}`,
    );
  };
  if (!NAME.test(name)) fail("not a variable name");
  if (/[\r\n\0"'\s]/.test(value)) fail("it holds characters a dotenv line cannot carry");
  let lines: string[] = [];
  try {
    const stats = lstatSync(file);
    if (!stats.isFile()) fail("it is not a regular file");
    lines = readFileSync(file, "utf8")
      .split("\n")
      .filter((l) => l !== "" && !l.startsWith(`${name}=`));
  } catch (err) {
    if (err instanceof ContractpinError) throw err;
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") {
      fail(visibleText(String((err as NodeJS.ErrnoException).code ?? "it cannot be read")));
    }
  }
  lines.push(`${name}=${value}`);
  try {
    // Never through a symbolic link (a checkout may plant one where the token goes).
    await writeReportAtomic(
      file,
      `${lines.join("\n")}\n`,
      "the OAuth state file",
      checkoutBases(),
      {
        mode: 0o600,
      },
    );
  } catch (err) {
    fail(
      visibleText((err as Error).message.replace(/^.*: cannot write the OAuth state file: /, "")),
    );
  }
}
