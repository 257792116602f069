import { canonicalize } from "../../core/canonical-json.js";
import { parseJson } from "../../core/strict-json.js";
import { readInput } from "../../io/read-input.js";
import { parseCommandArgs } from "../args.js";
import { EXIT } from "../exit-code.js";
import type { Io } from "../io.js";

export const help = `Usage: contractpin canonicalize [FILE|-]

Prints the canonical form (contractpin-canonical-json/1, RFC 8785) of one JSON
value: sorted keys, no whitespace, no trailing newline. Reads FILE (a regular
file), or standard input when FILE is - or absent; at most 64 MiB. The input
goes through the strict parser, so
duplicate keys, lone surrogates, 1e400 and invalid UTF-8 are rejected (exit 2).
`;

export async function run(args: string[], io: Io): Promise<number> {
  const { positionals } = parseCommandArgs("canonicalize", args, {}, 1);
  const value = parseJson(await readInput(positionals[0] ?? "-"));
  await io.out(canonicalize(value));
  return EXIT.OK;
}
