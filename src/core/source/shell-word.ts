// Commands contractpin suggests ("to accept the change ...: contractpin update
// NAME") are meant to be copied into a shell, and a server name comes from a
// lock or a client config that may not be the reader's: each word is quoted
// so that the shell reads it as one word and runs nothing in it.
import { visibleText } from "../visible-text.js";

/** A word as a POSIX shell reads it: as is when plain, else single-quoted; never raw control. */
export function shellWord(word: string): string {
  if (/^[A-Za-z0-9._/:@%+=,-]+$/.test(word)) return word;
  return `'${visibleText(word).replaceAll("'", `'\\''`)}'`;
}
