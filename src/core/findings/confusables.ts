// UTS #39 confusables, in a module of their own: the launch line's
// look-alike check and the name skeletons need them without the text rules'
// readings (read-text.ts), whose patterns cost a clean run milliseconds to build.
import { CONFUSABLE_ROWS } from "./confusables-data.js";
import { lazy } from "../lazy.js";

/** UTS #39 confusables with an ASCII prototype, by code point (built on first use). */
export const confusableMap = lazy(() => {
  const confusables = new Map<number, string>();
  for (const [prototype, codes] of CONFUSABLE_ROWS)
    for (const code of codes.split(" ")) confusables.set(parseInt(code, 36), prototype);
  return confusables;
});
