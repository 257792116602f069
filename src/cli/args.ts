import { parseArgs, type ParseArgsConfig } from "node:util";
import { ContractpinError } from "../core/errors.js";
import { nearest } from "./suggest.js";

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
    throw new ContractpinError("USAGE", explain(cause as Error, args, options) + hint, { cause });
  }
  if (parsed.positionals.length > maxPositionals) {
    throw new ContractpinError(
      "USAGE",
      `unexpected argument '${parsed.positionals[maxPositionals]}'${hint}`,
    );
  }
  return parsed;
}

/** parseArgs's complaint as one line that says what to do. */
function explain(err: Error & { code?: string }, args: string[], options: Options): string {
  const names = Object.keys(options).map((name) => `--${name}`);
  if (err.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
    const given = /'(-[^']*)'/.exec(err.message)?.[1] ?? "";
    const flag = given.split("=")[0]!;
    const near = nearest(flag, names);
    return `unknown option '${flag}'${near === undefined ? "" : `; did you mean '${near}'?`}`;
  }
  if (err.code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") {
    const flag = names.find(
      (name) => err.message.includes(`'${name}'`) || err.message.includes(`'${name} <value>'`),
    );
    if (flag !== undefined && /ambiguous/.test(err.message)) {
      // "--timeout -1": the value starts with a dash, so parseArgs calls it ambiguous.
      const value = args[args.indexOf(flag) + 1] ?? "";
      return /^-\d/.test(value)
        ? `${flag} takes a positive number, not '${value}'`
        : `${flag} needs a value; write ${flag}=VALUE for one that starts with '-'`;
    }
    // "--allow-new=false": a switch is on when present, so a value would be misread.
    if (flag !== undefined && /does not take an argument/.test(err.message)) {
      return `${flag} takes no value; leave it out to keep the default`;
    }
    if (flag !== undefined) return `${flag} needs a value`;
  }
  return (err.message.split(/\.\s|\n/)[0] ?? "bad arguments").replace(/\.$/, "");
}
