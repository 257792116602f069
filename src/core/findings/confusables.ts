// UTS #39 confusables, in a module of their own: the launch line's
// look-alike check and the name skeletons need them without the text rules'
// readings (read-text.ts), whose patterns cost a clean run milliseconds to build.
import { CONFUSABLE_ROWS } from "./confusables-data.js";

let confusables: Map<number, string> | undefined;

/** UTS #39 confusables with an ASCII prototype, by code point (built on first use). */
export function confusableMap(): Map<number, string> {
  if (confusables === undefined) {
    confusables = new Map();
    for (const [prototype, codes] of CONFUSABLE_ROWS)
      for (const code of codes.split(" ")) confusables.set(parseInt(code, 36), prototype);
  }
  return confusables;
}
