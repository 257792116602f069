import { canonicalize } from "../../core/json/canonical-json.js";
import { parseJson } from "../../core/json/strict-json.js";
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

Under GitHub Actions the bytes are written as they are, so that
\`contractpin canonicalize x.json | sha256sum\` hashes them: canonical JSON is
one line that starts with a JSON value, never a workflow command. Only a value
holding "##[", which the runner would read as one and which cannot be escaped
without changing the bytes, is written inside stop-commands markers; unset
GITHUB_ACTIONS for that command to get its bytes.

Examples:
  contractpin canonicalize tool.json | sha256sum
  echo '{"b":1,"a":[1.0,"\\u00e9"]}' | contractpin canonicalize -
`;

export async function run(args: string[], io: Io): Promise<number> {
  const { positionals } = parseCommandArgs("canonicalize", args, {}, 1);
  const value = parseJson(await readInput(positionals[0] ?? "-"));
  const text = canonicalize(value);
  // See the help: data unless it holds the one thing a runner could obey.
  await (text.includes("##[") || io.data === undefined ? io.out(text) : io.data(text));
  return EXIT.OK;
}
