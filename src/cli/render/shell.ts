import { shellWord } from "../../core/source/shell-word.js";

export { shellWord };

/** ` --lock PATH` when the command was given --lock, so that the suggestion acts on that lock. */
export function lockWords(lockOption: string | undefined): string {
  return lockOption === undefined ? "" : ` --lock ${shellWord(lockOption)}`;
}
