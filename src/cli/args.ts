import { parseArgs, type ParseArgsConfig } from "node:util";
import { ContractpinError } from "../core/errors.js";

type Options = NonNullable<ParseArgsConfig["options"]>;
type Config<O extends Options> = {
  args: string[];
  options: O;
  allowPositionals: true;
  strict: true;
};

/**
 * parseArgs with every complaint turned into a one-line USAGE error (exit 2)
 * that points at the command's --help.
 */
export function parseCommandArgs<O extends Options>(
  command: string,
  args: string[],
  options: O,
  maxPositionals: number,
): ReturnType<typeof parseArgs<Config<O>>> {
  const hint = ` (see 'contractpin ${command} --help')`;
  let parsed;
  try {
    parsed = parseArgs<Config<O>>({ args, options, allowPositionals: true, strict: true });
  } catch (cause) {
    const first = ((cause as Error).message.split(/\.\s|\n/)[0] ?? "bad arguments").replace(
      /\.$/,
      "",
    );
    throw new ContractpinError("USAGE", first + hint, { cause });
  }
  if (parsed.positionals.length > maxPositionals) {
    throw new ContractpinError(
      "USAGE",
      `unexpected argument '${parsed.positionals[maxPositionals]}'${hint}`,
    );
  }
  return parsed;
}
